import {
  ProviderProtocolError,
  type IdentityClaimField,
  type IdentityClaimsV1,
  type IdentityType,
} from '@verikit/provider';
import { RecordSchemaError } from '../errors/record-schema-error.js';
import { generateOtp } from '../secrets/secrets.js';
import type { EffectDefinition, EffectMemory, FlowEnvironment } from './flow-definition.js';
import type { EffectKind } from './flow-context.js';

// The provider calls of the identity ladder's steps (docs/flows.md, "The identity ladder"). Each answers the machine
// with `outcome` (`passed`, `failed`, `consent-requested`, `pending`), who answered (`by`) and booleans: never the
// record's data, the claims or the selfie. A step before the OTP also makes the OTP (kept in memory for the send
// that follows) and returns its keyed hash.

type StepCall = Parameters<EffectDefinition['run']>[0];

/** The number behind the flow, opened from its sealed form for one call. */
async function numberOf({ flowId, env, committedContext }: StepCall): Promise<string> {
  const sealed = (await committedContext()).numberSealed;
  if (typeof sealed !== 'string') throw new RecordSchemaError('the identity number is no longer held for this flow');
  return env.secrets.open(`number:${flowId}`, sealed);
}

/** The OTP of an `otp` step that comes next: made now, kept in memory, its keyed hash returned with the answer. */
function otpIfNext(call: StepCall, memory: EffectMemory, env: FlowEnvironment): { otpHash?: string } {
  if (call.input.otpNext !== 'true') return {};
  memory.otp = generateOtp(env.policies.otpLength);
  return { otpHash: env.secrets.hash(`otp:${call.flowId}`, memory.otp) };
}

const failed = (errorCode: string, errorMessage: string) => ({ outcome: 'failed', errorCode, errorMessage });

/** The provider's name, or the member of a composition that answered. */
const answeredBy = (env: FlowEnvironment, by: unknown) =>
  typeof by === 'string' && by !== '' ? by : env.provider.name;

/** The claims a match can compare, in the order they are recorded. */
const claimFields: readonly IdentityClaimField[] = ['firstName', 'lastName', 'dateOfBirth', 'phoneNumber'];

export const identityStepEffects: Readonly<Partial<Record<EffectKind, EffectDefinition>>> = {
  'identity.match': {
    send: false,
    async run(call) {
      const { flowId, input, context, memory, env, committedContext } = call;
      const sealed = (await committedContext()).claimsSealed;
      if (typeof sealed !== 'string') throw new RecordSchemaError('the claims are no longer held for this flow');
      const claims = JSON.parse(env.secrets.open(`claims:${flowId}`, sealed)) as IdentityClaimsV1;
      const number = await numberOf(call);
      const result = await env.provider.identitySteps!.match!(
        { idType: input.idType as IdentityType, number, claims },
        context,
      );
      if (typeof result !== 'object' || result === null || typeof result.found !== 'boolean')
        throw new ProviderProtocolError('identity match: the answer has no found boolean', { field: 'found' });
      const by = answeredBy(env, result.by);
      if (!result.found) return { ...failed('no_record', 'no record was found for this number'), by };
      // Booleans only, for the claims made.
      const fields: Partial<Record<IdentityClaimField, boolean>> = {};
      for (const field of claimFields) if (claims[field] !== undefined) fields[field] = result.fields?.[field] === true;
      const differing = Object.entries(fields)
        .filter(([, agrees]) => !agrees)
        .map(([field]) => field);
      if (differing.length > 0)
        return {
          ...failed('match_failed', `the claims do not match the record: ${differing.join(', ')}`),
          by,
          fields,
        };
      return { outcome: 'passed', by, fields, ...otpIfNext(call, memory, env) };
    },
  },
  'identity.consent-request': {
    send: false,
    async run(call) {
      const { input, context, env } = call;
      const number = await numberOf(call);
      const request = await env.provider.identitySteps!.consent!.request(
        { idType: input.idType as IdentityType, number },
        context,
      );
      if (typeof request?.reference !== 'string' || !/^[\x21-\x7e]{1,256}$/.test(request.reference))
        throw new ProviderProtocolError('identity consent: the answer has no reference', { field: 'reference' });
      if (
        request.url !== undefined &&
        (typeof request.url !== 'string' || !/^https?:\/\/\S{1,2000}$/.test(request.url))
      )
        throw new ProviderProtocolError('identity consent: the url is not a web address', { field: 'url' });
      // What is kept and shown must hold no identity number.
      if (request.reference.includes(number) || request.url?.includes(number) === true)
        throw new ProviderProtocolError('identity consent: the answer carries the identity number', { field: 'url' });
      return {
        outcome: 'consent-requested',
        reference: request.reference,
        ...(request.url === undefined ? {} : { url: request.url }),
        by: answeredBy(env, request.by),
      };
    },
  },
  'identity.consent-status': {
    send: false,
    async run(call) {
      const { context, env, committedContext, memory } = call;
      const reference = (await committedContext()).consentReference;
      if (typeof reference !== 'string') throw new RecordSchemaError('no consent request is held for this flow');
      const answer = await env.provider.identitySteps!.consent!.status({ reference }, context);
      const by = answeredBy(env, answer?.by);
      if (answer?.status === 'granted') return { outcome: 'passed', by, ...otpIfNext(call, memory, env) };
      if (answer?.status === 'refused') return { ...failed('consent_refused', 'the owner refused consent'), by };
      if (answer?.status === 'pending') return { outcome: 'pending', by };
      throw new ProviderProtocolError('identity consent: the status is not granted, refused or pending', {
        field: 'status',
      });
    },
  },
  'identity.face': {
    send: false,
    async run(call) {
      const { input, context, memory, env } = call;
      const image = memory.image;
      // Used once: a retry needs a new selfie.
      memory.image = undefined;
      if (image === undefined) throw new RecordSchemaError('the selfie is no longer held: submit it again');
      const number = await numberOf(call);
      const result = await env.provider.identitySteps!.face!(
        { idType: input.idType as IdentityType, number, image },
        context,
      );
      if (typeof result?.found !== 'boolean' || typeof result.match !== 'boolean')
        throw new ProviderProtocolError('identity face: the answer has no found and match booleans', {
          field: 'match',
        });
      const by = answeredBy(env, result.by);
      const live = typeof result.live === 'boolean' ? { live: result.live } : {};
      if (!result.found) return { ...failed('no_record', 'no record with a photo was found for this number'), by };
      if (!result.match)
        return { ...failed('face_mismatch', 'the selfie is not the person on the record'), by, ...live };
      if (result.live === false)
        return { ...failed('liveness_failed', 'the selfie did not pass liveness'), by, live: false };
      return { outcome: 'passed', by, ...live, ...otpIfNext(call, memory, env) };
    },
  },
};
