import {
  defaultFakePeople,
  IdentityFakeState,
  identityVendorFake,
  outageAnswer,
  serveFake,
  type FakePerson,
  type IdentityVendorFake,
} from '@verikit/provider-utils/fake';
import { Hono, type Context } from 'hono';
import { isSmileIdSignature, smileIdSignature } from '../smile-id-signature.js';
import { readStoredZip } from '../smile-id-zip.js';

/** Options of {@link startSmileIdFake}. */
export interface SmileIdFakeOptions {
  /** The partner id the fake accepts. Default `0000`. */
  readonly partnerId?: string;
  /** The API key requests must be signed with. Default `smile-id-fake-api-key`. */
  readonly apiKey?: string;
  /** The register it answers from. Default `defaultFakePeople` of `@verikit/provider-utils/fake`. */
  readonly people?: readonly FakePerson[];
  /** Port on 127.0.0.1. Default 0: a free one. */
  readonly port?: number;
}

/**
 * A running Smile ID fake. Its `charges` are the lookups Smile ID would bill: one per answered Enhanced KYC, one per
 * completed Biometric KYC.
 */
export interface SmileIdFake extends IdentityVendorFake {
  /** What to pass as `baseUrl`: the server and `/v1`. */
  readonly baseUrl: string;
  /** The partner id it accepts: give it to the provider. */
  readonly partnerId: string;
  /** The API key requests must be signed with: give it to the provider. */
  readonly apiKey: string;
}

/** A request the fake refuses, with its answer. */
interface Refusal {
  readonly refused: Response;
}
const refusedBy = (read: Record<string, unknown> | Refusal): read is Refusal =>
  'refused' in read && read.refused !== undefined;

interface FakeJob {
  readonly jobId: string;
  readonly number: string;
  readonly partnerParams: unknown;
  result?: Record<string, unknown>;
}

/**
 * Starts a fake of Smile ID's API (Enhanced KYC `/v1/id_verification`, Biometric KYC `/v1/upload`, the zip upload,
 * `/v1/job_status`) on 127.0.0.1, checking every request's signature as Smile ID does and signing its job statuses.
 * It answers from a register (`people`): a number not in it is ResultCode 1013 (not found). For tests and development.
 *
 * @example
 * const fake = await startSmileIdFake();
 * const provider = createSmileIdProvider({ partnerId: fake.partnerId, apiKey: fake.apiKey, baseUrl: fake.baseUrl,
 *   callbackUrl: 'http://127.0.0.1/callback' });
 */
export async function startSmileIdFake(options: SmileIdFakeOptions = {}): Promise<SmileIdFake> {
  const partnerId = options.partnerId ?? '0000';
  const apiKey = options.apiKey ?? 'smile-id-fake-api-key';
  const state = new IdentityFakeState(options.people ?? defaultFakePeople);
  const jobs = new Map<string, FakeJob>();
  let base = '';
  const app = new Hono();

  const signed = () => {
    const timestamp = new Date().toISOString();
    return { timestamp, signature: smileIdSignature(partnerId, apiKey, timestamp) };
  };
  const unauthorized = (c: Context) => c.json({ code: '2205', error: 'You are not authorized to do that.' }, 401);
  /** Reads and records a JSON request; an answer when it must be refused. */
  async function read(c: Context, partnerField = 'partner_id'): Promise<Record<string, unknown> | Refusal> {
    const text = await c.req.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { refused: c.json({ code: '2204', error: 'The request body is not JSON.' }, 400) };
    }
    state.requests.push({ method: c.req.method, path: c.req.path, body, headers: c.req.header() });
    const outage = await outageAnswer(state, c.req.raw.signal);
    if (outage !== undefined) return { refused: outage };
    if (body[partnerField] !== partnerId || !isSmileIdSignature(partnerId, apiKey, body.timestamp, body.signature))
      return { refused: unauthorized(c) };
    return body;
  }

  app.post('/v1/id_verification', async (c) => {
    const body = await read(c);
    if (refusedBy(body)) return body.refused;
    for (const field of ['country', 'id_type', 'id_number', 'partner_params'])
      if (body[field] === undefined) return c.json({ code: '2213', error: `Missing parameter: ${field}` }, 400);
    const number = String(body.id_number);
    const jobId = state.next('smile-job');
    const person = state.people.get(number);
    state.charge('match', jobId);
    const common = {
      SmileJobID: jobId,
      PartnerParams: body.partner_params,
      ResultType: 'ID Verification',
      Country: body.country,
      IDType: body.id_type,
      IDNumber: number,
      ...signed(),
    };
    if (person === undefined)
      return c.json({
        ...common,
        ResultText: 'ID Number Not Found',
        ResultCode: '1013',
        Actions: { Verify_ID_Number: 'Not Verified', Return_Personal_Info: 'Not Returned' },
      });
    return c.json({
      ...common,
      ResultText: 'ID Number Validated',
      ResultCode: '1012',
      IsFinalResult: 'true',
      Actions: { Verify_ID_Number: 'Verified', Return_Personal_Info: 'Returned' },
      FullName: `${person.lastName.toUpperCase()} ${person.firstName.toUpperCase()}`,
      DOB: person.dateOfBirth,
      PhoneNumber: `0${person.phoneNumber.slice(4)}`,
    });
  });

  app.post('/v1/upload', async (c) => {
    const body = await read(c, 'smile_client_id');
    if (refusedBy(body)) return body.refused;
    if (typeof body.callback_url !== 'string' || body.callback_url === '')
      return c.json({ code: '2213', error: 'Missing parameter: callback_url' }, 400);
    const jobId = state.next('smile-job');
    jobs.set(jobId, { jobId, number: String(body.id_number ?? ''), partnerParams: body.partner_params });
    return c.json({
      upload_url: `${base}/upload/${jobId}`,
      smile_job_id: jobId,
      ref_id: jobId,
      camera_config: null,
      code: '2202',
    });
  });

  app.put('/upload/:job', async (c) => {
    const job = jobs.get(c.req.param('job'));
    const zip = new Uint8Array(await c.req.arrayBuffer());
    const files = Object.fromEntries(
      [...readStoredZip(zip)].map(([name, data]) => [
        name,
        name.endsWith('.json') ? JSON.parse(Buffer.from(data).toString('utf8')) : data,
      ]),
    );
    state.requests.push({ method: 'PUT', path: c.req.path, body: files, headers: c.req.header() });
    const outage = await outageAnswer(state, c.req.raw.signal);
    if (outage !== undefined) return outage;
    if (job === undefined) return c.text('NoSuchUpload', 404);
    const info = files['info.json'] as { images?: Array<{ image_type_id: number; image: string }> } | undefined;
    const selfie = info?.images?.find((image) => image.image_type_id === 2 || image.image_type_id === 0);
    const face = state.faceOf(job.number, Buffer.from(selfie?.image ?? '', 'base64'));
    state.charge('face', job.jobId);
    job.result = {
      ResultCode: face.found ? (face.match && face.live ? '1020' : '1022') : '1013',
      ResultText: face.found ? (face.match ? 'Exact Match' : 'No Match') : 'ID Number Not Found',
      SmileJobID: job.jobId,
      PartnerParams: job.partnerParams,
      Actions: {
        Verify_ID_Number: face.found ? 'Verified' : 'Not Verified',
        Liveness_Check: face.live ? 'Passed' : 'Failed',
        Selfie_To_ID_Authority_Compare: face.found ? (face.match ? 'Completed' : 'Failed') : 'Not Applicable',
      },
    };
    return c.body(null, 200);
  });

  app.post('/v1/job_status', async (c) => {
    const body = await read(c);
    if (refusedBy(body)) return body.refused;
    const job = [...jobs.values()].find(
      (each) => (each.partnerParams as { job_id?: unknown } | undefined)?.job_id === body.job_id,
    );
    if (job === undefined) return c.json({ code: '2205', error: 'Job not found', ...signed() }, 404);
    return c.json({
      job_complete: job.result !== undefined,
      job_success: job.result?.ResultCode === '1020',
      code: job.result === undefined ? '2314' : '2302',
      result: job.result ?? 'Job is still running',
      history: [],
      image_links: {},
      ...signed(),
    });
  });
  app.notFound((c) => c.json({ code: '2204', error: 'Not found' }, 404));

  const server = await serveFake(app.fetch, options.port ?? 0);
  base = server.url;
  return { ...identityVendorFake(state, server, () => jobs.clear()), baseUrl: `${server.url}/v1`, partnerId, apiKey };
}
