import type { ProviderCallContextV1 } from '@verikit/provider';
import { createHttpClient, failedAnswer, isAccepted, readJsonAnswer, statusError } from '@verikit/provider-utils';
import { smileIdSignature } from './smile-id-signature.js';
import type { SmileIdOperation } from './smile-id-settings.js';
import type { ResolvedSmileIdSettings } from './smile-id-settings-schema.js';

/** Smile ID's paths under the versioned base URL, as its Node SDK (`smile-identity-core` 3.2.1) calls them. */
export const smileIdPaths = {
  /** Enhanced KYC, synchronous (`IDApi.submit_job`, job type 5). */
  idVerification: '/id_verification',
  /** Biometric KYC: the upload's preparation (`WebApi.submit_job`, job type 1), which answers with `upload_url`. */
  upload: '/upload',
  /** A job's status (`Utilities.get_job_status`), signed by Smile ID. */
  jobStatus: '/job_status',
} as const;

/** The source Smile ID's requests name: ours, as its REST docs ask an integration to name itself. */
export const sourceSdk = { source_sdk: 'verikit', source_sdk_version: '1.0.0' } as const;

/** A JSON object Smile ID answered with. */
export type SmileIdAnswer = Readonly<Record<string, unknown>>;

/** Posts signed JSON to Smile ID, and PUTs a zip to the upload address it gives. */
export interface SmileIdClient {
  /** The partner id and a fresh signature, as every body carries them. */
  signed(): { partner_id: string; timestamp: string; signature: string };
  /** POSTs `body` to `path`; the JSON object of a 2xx answer, else a typed error with Smile ID's message made safe. */
  post(
    operation: SmileIdOperation,
    path: string,
    body: Record<string, unknown>,
    context: ProviderCallContextV1,
  ): Promise<SmileIdAnswer>;
  /** PUTs the zip to the signed upload address (it carries its own credentials). */
  upload(url: string, zip: Uint8Array, context: ProviderCallContextV1): Promise<void>;
}

/** Smile ID's message in an error answer: `error`, else `ResultText`. */
function smileIdMessage(answer: Record<string, unknown> | undefined): string | undefined {
  for (const key of ['error', 'ResultText', 'message']) if (typeof answer?.[key] === 'string') return answer[key];
  return undefined;
}

/** Creates the Smile ID client on the shared HTTP client of `@verikit/provider-utils`. */
export function createSmileIdClient(settings: ResolvedSmileIdSettings): SmileIdClient {
  const http = createHttpClient<SmileIdOperation>({ ...settings });
  return {
    signed() {
      const partnerId = settings.partnerId();
      const timestamp = new Date().toISOString();
      return { partner_id: partnerId, timestamp, signature: smileIdSignature(partnerId, settings.apiKey(), timestamp) };
    },
    async post(operation, path, body, context) {
      const answer = await http.send(
        { operation, url: settings.baseUrl() + path, path, body: JSON.stringify(body) },
        context,
      );
      return readJsonAnswer(
        { logger: context.logger, provider: settings.name, operation, answer },
        { message: smileIdMessage },
      );
    },
    async upload(url, zip, context) {
      const label = `${settings.name} identitySteps.face`;
      const answer = await http.send(
        {
          operation: 'identitySteps.face',
          url,
          path: new URL(url).pathname,
          method: 'PUT',
          bytes: zip,
          contentType: 'application/zip',
        },
        context,
      );
      if (!isAccepted(answer))
        throw failedAnswer(
          { logger: context.logger, provider: settings.name, operation: 'identitySteps.face', answer },
          statusError(label, answer.status, undefined),
        );
    },
  };
}
