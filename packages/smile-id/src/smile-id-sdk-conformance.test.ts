import { readFileSync, writeFileSync } from 'node:fs';
import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import type { FakeIdentityRequest } from '@verikit/provider-utils/fake';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSmileIdProvider, isSmileIdSignature, smileIdSignature } from './index.js';
import { startSmileIdFake, type SmileIdFake } from './fake/index.js';
import { sdkRequests, smileSdk, smileSdkVersion } from './smile-id-sdk-requests.fixtures.js';

// Smile ID's official Node SDK (smile-identity-core) and this provider make the same requests for the same job: both
// are sent to the fake and compared field by field. conformance/README.md says what was checked, and
// conformance/sdk-requests.json keeps the SDK's requests (`SMILE_ID_CAPTURE=1` writes it again).

const captureFile = new URL('../conformance/sdk-requests.json', import.meta.url);
const number = '22222222222';
const selfie = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 1, 2, 3]);
const claims = { firstName: 'Adaeze', lastName: 'Okonkwo', dateOfBirth: '1991-04-23', phoneNumber: '+2348031110001' };
const sdkClaims = { first_name: 'Adaeze', last_name: 'Okonkwo', dob: '1991-04-23', phone_number: '08031110001' };

/** Fields that change with every request (a time, its signature), or that name the integration by design. */
const varying = new Set(['timestamp', 'signature', 'misc_information.timestamp', 'misc_information.signature']);
const byDesign: Record<string, string> = {
  source_sdk: 'names the integration: the SDK says `javascript`, we say `verikit`, as Smile ID asks of a REST client',
  source_sdk_version: 'the integration’s version',
  'misc_information.userData.firstName':
    'the SDK sends the placeholder `Bill` (its source: "TO ASK what goes here"); we send no name',
};
/** Values Smile ID's answer gave each run (job ids): compared by type. */
const answered = /^server_information\.(upload_url|smile_job_id|ref_id)$/;

/** Every leaf of a JSON value by dotted path. */
function leaves(value: unknown, path = '', into = new Map<string, unknown>()): Map<string, unknown> {
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array) && Object.keys(value).length > 0)
    for (const [key, child] of Object.entries(value)) leaves(child, path === '' ? key : `${path}.${key}`, into);
  else into.set(path, value);
  return into;
}

/** The kind of a request: its method and path, an upload's job id left out. */
const kindOf = (request: FakeIdentityRequest) =>
  `${request.method} ${request.path.replace(/\/upload\/.+$/, '/upload/:job')}`;

type Verdict = 'equal' | 'varying' | 'by design' | 'differs' | 'missing';

function compare(sdk: FakeIdentityRequest[], ours: FakeIdentityRequest[]) {
  const rows: Array<{ request: string; field: string; verdict: Verdict }> = [];
  for (const request of sdk) {
    const mine = ours.find((each) => kindOf(each) === kindOf(request));
    const theirs = leaves(request.body);
    const own = mine === undefined ? new Map() : leaves(mine.body);
    for (const [path, value] of theirs) {
      // An upload's body is its zip: `info.json` is read as JSON, its fields named as in the file.
      const field = path.replace(/^info\.json\./, '');
      const verdict: Verdict = !own.has(path)
        ? 'missing'
        : varying.has(field) || answered.test(field)
          ? typeof own.get(path) === typeof value
            ? 'varying'
            : 'differs'
          : field in byDesign
            ? 'by design'
            : JSON.stringify(own.get(path)) === JSON.stringify(value)
              ? 'equal'
              : 'differs';
      rows.push({ request: kindOf(request), field, verdict });
    }
    // A field we send that the SDK does not.
    for (const field of own.keys())
      if (!theirs.has(field)) rows.push({ request: kindOf(request), field, verdict: 'differs' });
  }
  return rows;
}

describe("Smile ID: this provider's requests against the official Node SDK's", () => {
  let fake: SmileIdFake;
  let sdk: FakeIdentityRequest[];
  let ours: FakeIdentityRequest[];
  beforeAll(async () => {
    fake = await startSmileIdFake();
    sdk = await sdkRequests(fake, { number, selfie, claims: sdkClaims });
    const provider = createSmileIdProvider({
      partnerId: fake.partnerId,
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      callbackUrl: 'http://127.0.0.1/callback',
      pollMs: 0,
    });
    const from = fake.requests.length;
    const context = (n: number): ProviderCallContextV1 => ({
      signal: new AbortController().signal,
      idempotencyKey: `flow-1:effect:${n}`,
      logger: silentLogger,
    });
    await provider.identitySteps!.match!({ idType: 'bvn', number, claims }, context(1));
    await provider.identitySteps!.face!({ idType: 'bvn', number, image: selfie }, context(2));
    ours = fake.requests.slice(from);
  });
  afterAll(() => fake.close());

  it('makes the same requests, field by field: every field agrees but the three that name the integration', () => {
    const rows = compare(sdk, ours);
    const disagreeing = rows.filter((row) => row.verdict === 'differs' || row.verdict === 'missing');
    expect(disagreeing).toEqual([]);
    expect(
      rows
        .filter((row) => row.verdict === 'by design')
        .map((row) => row.field)
        .sort(),
    ).toEqual([
      'misc_information.userData.firstName',
      'source_sdk',
      'source_sdk',
      'source_sdk_version',
      'source_sdk_version',
    ]);
    const agree = rows.filter((row) => row.verdict === 'equal' || row.verdict === 'varying').length;
    // The figure conformance/README.md quotes.
    console.info(`smile-id: ${agree} of ${rows.length} SDK request fields agree (${rows.length - agree} by design)`);
    expect(sdk.map(kindOf)).toEqual([
      'POST /v1/id_verification',
      'POST /v1/upload',
      'PUT /upload/:job',
      'POST /v1/job_status',
    ]);
    expect(ours.map(kindOf)).toEqual(sdk.map(kindOf));
  });

  it('signs as the SDK does: the same signature for the same time, and each accepts the other’s', () => {
    const sign = new smileSdk.Signature(fake.partnerId, fake.apiKey);
    for (let second = 0; second < 200; second += 1) {
      const timestamp = new Date(Date.UTC(2026, 10, 28, 6, 0, second, second * 7)).toISOString();
      expect(smileIdSignature(fake.partnerId, fake.apiKey, timestamp)).toBe(
        sign.generate_signature(timestamp).signature,
      );
      expect(sign.confirm_signature(timestamp, smileIdSignature(fake.partnerId, fake.apiKey, timestamp))).toBe(true);
    }
    for (const request of [...sdk, ...ours].filter((each) => each.method === 'POST')) {
      const body = request.body as Record<string, unknown>;
      expect(isSmileIdSignature(fake.partnerId, fake.apiKey, body.timestamp, body.signature)).toBe(true);
    }
  });

  it('keeps the SDK requests it checked against, with their source and date, and they are what the SDK sends today', () => {
    const fields = (requests: FakeIdentityRequest[]) =>
      requests.map((request) => ({ request: kindOf(request), fields: [...leaves(request.body).keys()].sort() }));
    if (process.env.SMILE_ID_CAPTURE === '1')
      writeFileSync(
        captureFile,
        `${JSON.stringify(
          {
            source: `smile-identity-core ${smileSdkVersion} (npm), IDApi.submit_job, WebApi.submit_job, get_job_status, run against @verikit/smile-id/fake`,
            capturedAt: new Date().toISOString().slice(0, 10),
            requests: sdk.map((request) => ({ request: kindOf(request), body: request.body })),
          },
          (_key, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value),
          2,
        )}\n`,
      );
    const kept = JSON.parse(readFileSync(captureFile, 'utf8')) as {
      source: string;
      capturedAt: string;
      requests: Array<{ request: string; body: unknown }>;
    };
    expect(kept.source).toContain(`smile-identity-core ${smileSdkVersion}`);
    expect(kept.capturedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(
      kept.requests.map((request) => ({ request: request.request, fields: [...leaves(request.body).keys()].sort() })),
    ).toEqual(fields(sdk));
  });
});
