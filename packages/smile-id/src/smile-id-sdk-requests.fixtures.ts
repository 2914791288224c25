import { createRequire } from 'node:module';
import type { FakeIdentityRequest } from '@verikit/provider-utils/fake';
import type { SmileIdFake } from './fake/index.js';

// Test-only: Smile ID's official Node SDK (`smile-identity-core`, a devDependency) driven against the fake, so the
// requests it makes can be compared with ours field by field (conformance/README.md).

const require = createRequire(import.meta.url);

interface SmileSdk {
  IDApi: new (
    partnerId: string,
    apiKey: string,
    server: string,
  ) => {
    axiosInstance: { defaults: { baseURL?: string } };
    submit_job(partnerParams: object, idInfo: object): Promise<unknown>;
  };
  WebApi: new (
    partnerId: string,
    callback: string,
    apiKey: string,
    server: string,
  ) => {
    url: string;
    submit_job(partnerParams: object, images: object[], idInfo: object, options: object): Promise<unknown>;
  };
  Signature: new (
    partnerId: string,
    apiKey: string,
  ) => {
    generate_signature(timestamp?: string): { signature: string; timestamp: string };
    confirm_signature(timestamp: string, signature: string): boolean;
  };
}

/** The SDK, and its `get_job_status`, which takes a URL as given (the classes force `https://`). */
export const smileSdk = require('smile-identity-core') as SmileSdk;
const utilities = require('smile-identity-core/dist/src/utilities.js') as {
  get_job_status(
    partnerId: string,
    apiKey: string,
    url: string,
    userId: string,
    jobId: string,
    options: { return_history: boolean; return_images: boolean },
  ): Promise<Record<string, unknown>>;
};
/** The SDK's version, as it names itself in `source_sdk_version`. */
export const smileSdkVersion = (require('smile-identity-core/package.json') as { version: string }).version;

/**
 * The requests the SDK makes for what the provider does: an Enhanced KYC job (`IDApi.submit_job`, job type 5) with
 * the claims, a Biometric KYC job (`WebApi.submit_job`, job type 1) with a base64 selfie and `entered: true`, and the
 * job's status (`get_job_status`). The SDK forces `https://` on its server; the fake is plain HTTP on 127.0.0.1, so
 * the base URL is set on the SDK's objects after they are made. Returns the requests the fake received.
 */
export async function sdkRequests(
  fake: SmileIdFake,
  input: { number: string; selfie: Uint8Array; claims: Record<string, string> },
): Promise<FakeIdentityRequest[]> {
  const from = fake.requests.length;
  const idApi = new smileSdk.IDApi(fake.partnerId, fake.apiKey, fake.baseUrl);
  idApi.axiosInstance.defaults.baseURL = fake.baseUrl;
  const user = { user_id: 'verikit-flow-1', job_id: 'verikit-flow-1-effect-1' };
  await idApi.submit_job(
    { ...user, job_type: 5 },
    { country: 'NG', id_type: 'BVN', id_number: input.number, ...input.claims },
  );
  const webApi = new smileSdk.WebApi(fake.partnerId, 'http://127.0.0.1/callback', fake.apiKey, fake.baseUrl);
  webApi.url = fake.baseUrl;
  const faceJob = { user_id: 'verikit-flow-1', job_id: 'verikit-flow-1-effect-2' };
  await webApi.submit_job(
    { ...faceJob, job_type: 1 },
    [{ image_type_id: 2, image: Buffer.from(input.selfie).toString('base64') }],
    { country: 'NG', id_type: 'BVN', id_number: input.number, entered: true },
    { return_job_status: false },
  );
  await utilities.get_job_status(fake.partnerId, fake.apiKey, fake.baseUrl, faceJob.user_id, faceJob.job_id, {
    return_history: false,
    return_images: false,
  });
  return fake.requests.slice(from);
}
