import {
  InvalidInputError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type IdentityFaceResultV1,
  type IdentityMatchResultV1,
  type IdentityStepsCapabilityV1,
  type IdentityType,
  type ProviderCallContextV1,
  type ProviderV1,
} from '@verikit/provider';
import { compareClaims, isVirtualNin, readIdentityStepInput, readSelfie } from '@verikit/provider-utils';
import { createSmileIdClient, smileIdPaths, sourceSdk, type SmileIdAnswer } from './smile-id-client.js';
import type { SmileIdProviderSettings } from './smile-id-settings.js';
import { resolveSmileIdSettings } from './smile-id-settings-schema.js';
import { isSmileIdSignature } from './smile-id-signature.js';
import { storedZip } from './smile-id-zip.js';

/** Smile ID's job types (its SDK's `JOB_TYPE`). */
const jobType = { biometricKyc: 1, enhancedKyc: 5 } as const;

/** Smile ID's id types for Nigeria: a BVN, a NIN (`NIN_V2`), a virtual NIN (`V_NIN`). */
function smileIdType(idType: IdentityType, number: string): string {
  if (idType === 'bvn') return 'BVN';
  return isVirtualNin(number) ? 'V_NIN' : 'NIN_V2';
}

/** A national Nigerian number (`08031234567`), as Smile ID's Nigerian records write phone numbers. */
function nationalPhone(phoneNumber: string): string {
  return phoneNumber.startsWith('+234') ? `0${phoneNumber.slice(4)}` : phoneNumber;
}

/** `user_id` and `job_id` from the engine's effect id: no identity data, and a repeat of one effect is one job. */
function partnerParams(context: ProviderCallContextV1, type: number) {
  const key = context.idempotencyKey.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 100);
  const flow = key.split('-effect-')[0] ?? key;
  return { user_id: `verikit-${flow}`, job_id: `verikit-${key}`, job_type: type };
}

/** Enhanced KYC's result codes that answer the question (Smile ID's docs, "Result codes"). */
const resultCodes = {
  validated: '1012',
  notFound: '1013',
  /** The ID authority is unavailable: Smile ID took nothing (no charge), so another vendor may be asked. */
  authorityUnavailable: '1015',
} as const;

/**
 * Creates the Smile ID provider: the identity ladder's `match` by Enhanced KYC (the record is compared here with what
 * the user claims, and only booleans leave the provider) and `face` by Biometric KYC (the selfie zipped with its
 * `info.json`, uploaded to the address Smile ID signs, and the job's signed status polled). No OTP, no consent step,
 * no messaging: those capabilities are absent. Requests are signed as Smile ID defines (`smileIdSignature`) and agree
 * field by field with its Node SDK's (`conformance/README.md`).
 *
 * Every setting may come from the environment (`SMILE_ID_PARTNER_ID`, `SMILE_ID_API_KEY`, `SMILE_ID_BASE_URL`,
 * `SMILE_ID_CALLBACK_URL`), read at each call. Bad settings throw an `InvalidInputError` naming the setting.
 *
 * @example
 * const provider = createSmileIdProvider({ callbackUrl: 'https://acme.example/smile-id/callback' });
 */
export function createSmileIdProvider(settings: SmileIdProviderSettings = {}): ProviderV1 {
  const resolved = resolveSmileIdSettings(settings);
  const client = createSmileIdClient(resolved);
  const name = resolved.name;

  async function match(
    input: Parameters<NonNullable<IdentityStepsCapabilityV1['match']>>[0],
    context: ProviderCallContextV1,
  ): Promise<IdentityMatchResultV1> {
    const { idType, number, claims } = readIdentityStepInput(input);
    const { partner_id, ...signature } = client.signed();
    // The fields in the SDK's order: partner_id, partner_params, the id info, the signature, the source.
    const body = {
      partner_id,
      partner_params: partnerParams(context, jobType.enhancedKyc),
      country: 'NG',
      id_type: smileIdType(idType, number),
      id_number: number,
      ...(claims.firstName === undefined ? {} : { first_name: claims.firstName }),
      ...(claims.lastName === undefined ? {} : { last_name: claims.lastName }),
      ...(claims.dateOfBirth === undefined ? {} : { dob: claims.dateOfBirth }),
      ...(claims.phoneNumber === undefined ? {} : { phone_number: nationalPhone(claims.phoneNumber) }),
      ...signature,
      ...sourceSdk,
    };
    const answer = await client.post('identitySteps.match', smileIdPaths.idVerification, body, context);
    const code = String(answer.ResultCode ?? '');
    if (code === resultCodes.notFound) return { found: false, fields: {} };
    if (code === resultCodes.authorityUnavailable)
      throw new ProviderUnavailableError(
        `${name} identitySteps.match: the ID authority is unavailable (ResultCode 1015)`,
        {
          requestSent: false,
        },
      );
    if (code !== resultCodes.validated)
      throw new ProviderRejectedError(`${name} identitySteps.match: Smile ID answered ResultCode ${code.slice(0, 8)}`);
    // Enhanced KYC answers with the record itself: compared here, only a boolean per claim leaves the provider.
    const record = answer as Readonly<Record<string, unknown>>;
    return {
      found: true,
      fields: compareClaims(claims, {
        names: [record.FullName, record.FirstName, record.LastName, record.OtherName],
        dateOfBirth: record.DOB,
        phones: [record.PhoneNumber, record.PhoneNumber2],
      }),
    };
  }

  async function face(
    input: Parameters<NonNullable<IdentityStepsCapabilityV1['face']>>[0],
    context: ProviderCallContextV1,
  ): Promise<IdentityFaceResultV1> {
    const { idType, number } = readIdentityStepInput(input);
    const image = readSelfie(input);
    const callbackUrl = resolved.callbackUrl();
    if (callbackUrl === undefined)
      throw new InvalidInputError([
        {
          field: 'callbackUrl',
          message: 'is required for the face step: configure callbackUrl (SMILE_ID_CALLBACK_URL)',
        },
      ]);
    const params = partnerParams(context, jobType.biometricKyc);
    const idInfo = { country: 'NG', id_type: smileIdType(idType, number), id_number: number, entered: 'true' };
    const signed = client.signed();
    // The preparation of the upload, as the SDK's `configurePrepUploadPayload` makes it.
    const prepared = await client.post(
      'identitySteps.face',
      smileIdPaths.upload,
      {
        callback_url: callbackUrl,
        file_name: 'selfie.zip',
        model_parameters: {},
        partner_params: params,
        smile_client_id: signed.partner_id,
        use_enrolled_image: false,
        ...idInfo,
        signature: signed.signature,
        timestamp: signed.timestamp,
        ...sourceSdk,
      },
      context,
    );
    const uploadUrl = prepared.upload_url;
    if (typeof uploadUrl !== 'string' || !/^https?:\/\//.test(uploadUrl))
      throw new ProviderProtocolError(`${name} identitySteps.face: the answer has no upload_url`, {
        field: 'upload_url',
      });
    // info.json as the SDK's `configureInfoJson` makes it, the selfie inside it in base64 (image type 2).
    const info = {
      package_information: { apiVersion: { buildNumber: 0, majorVersion: 2, minorVersion: 0 }, language: 'javascript' },
      // No `signature` here: the SDK's `configureInfoJson` reads one its data never holds, so it sends none.
      misc_information: {
        retry: 'false',
        partner_params: params,
        timestamp: signed.timestamp,
        file_name: 'selfie.zip',
        smile_client_id: signed.partner_id,
        callback_url: callbackUrl,
        userData: {
          isVerifiedProcess: false,
          name: '',
          fbUserID: '',
          firstName: '',
          lastName: '',
          gender: '',
          email: '',
          phone: '',
          countryCode: '+',
          countryName: '',
        },
      },
      id_info: idInfo,
      images: [{ image_type_id: 2, image: Buffer.from(image).toString('base64'), file_name: '' }],
      server_information: prepared,
    };
    await client.upload(
      uploadUrl,
      storedZip([{ name: 'info.json', data: Buffer.from(JSON.stringify(info)) }]),
      context,
    );
    const status = await pollJobStatus(params, context);
    return faceResult(status);
  }

  /** Asks for the job's status until it is complete (one ask every `pollMs`), checking Smile ID's signature on it. */
  async function pollJobStatus(
    params: { user_id: string; job_id: string },
    context: ProviderCallContextV1,
  ): Promise<SmileIdAnswer> {
    for (let attempt = 1; ; attempt += 1) {
      const signed = client.signed();
      const status = await client.post(
        'identitySteps.face',
        smileIdPaths.jobStatus,
        {
          user_id: params.user_id,
          job_id: params.job_id,
          partner_id: signed.partner_id,
          history: false,
          image_links: false,
          timestamp: signed.timestamp,
          signature: signed.signature,
        },
        context,
      );
      if (!isSmileIdSignature(resolved.partnerId(), resolved.apiKey(), status.timestamp, status.signature))
        throw new ProviderProtocolError(`${name} identitySteps.face: the job status is not signed by Smile ID`, {
          field: 'signature',
        });
      if (status.job_complete === true) return status;
      // The job was taken (and charged): it is not repeated elsewhere, so a job still running is "maybe sent".
      if (attempt >= resolved.pollAttempts)
        throw new ProviderUnavailableError(`${name} identitySteps.face: the job did not complete in time`, {
          requestSent: true,
          maybeSent: true,
        });
      await wait(resolved.pollMs, context.signal);
    }
  }

  const identitySteps: IdentityStepsCapabilityV1 = {
    types: Object.freeze(['bvn', 'nin'] as const),
    virtualNin: true,
    matchFields: Object.freeze(['firstName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const),
    match,
    ...(resolved.callbackUrl() === undefined ? {} : { face }),
  };
  return Object.freeze({ specificationVersion: 'v1', name, identitySteps: Object.freeze(identitySteps) });
}

/** Biometric KYC's verdict: a match and liveness from the job's `Actions`; a number not found is `found: false`. */
function faceResult(status: SmileIdAnswer): IdentityFaceResultV1 {
  const result = (status.result ?? {}) as { ResultCode?: unknown; Actions?: Record<string, unknown> };
  const actions = result.Actions ?? {};
  if (String(result.ResultCode) === resultCodes.notFound || actions.Verify_ID_Number === 'Not Verified')
    return { found: false, match: false };
  const compare = actions.Selfie_To_ID_Authority_Compare;
  const liveness = actions.Liveness_Check;
  return {
    found: true,
    match: compare === 'Completed' || compare === 'Passed',
    ...(liveness === 'Passed' ? { live: true } : liveness === 'Failed' ? { live: false } : {}),
  };
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
