import {
  markParsedV1,
  InvalidInputError,
  isVirtualNin,
  ProviderProtocolError,
  requireCapabilityV1,
  type IdentityClaimsV1,
  type IdentityStep,
  type IdentityType,
} from '@verikit/provider';
import { RecordSchemaError } from '../errors/record-schema-error.js';
import { generateOtp, mask } from '../secrets/secrets.js';
import type { FlowDefinition } from './flow-definition.js';
import { identityStepEffects } from './identity-step-effects.js';
import { createIdentityMachine } from './identity-machine.js';

type IdentityStart = {
  kind: 'identity';
  idType: IdentityType;
  number: string;
  steps?: IdentityStep[] | undefined;
  claims?: IdentityClaimsV1 | undefined;
};

/**
 * BVN/NIN verification: a ladder of steps (by default the OTP alone, docs/flows.md), with an OTP the engine
 * generates. The OTP lives in memory for the send and is stored only as a keyed hash; the number is stored masked,
 * hashed (for the send limit) and sealed under the flow id (for a resend and later steps), never in clear
 * (docs/decisions/0003-identity-number-sealed.md); a match's claims only sealed, until the match; a selfie only in
 * memory, for its call.
 */
export const identityFlow: FlowDefinition<IdentityStart> = {
  kind: 'identity',
  createMachine: createIdentityMachine,
  userEvents: ['submit-code', 'resend', 'cancel', 'consent-given', 'submit-selfie'],
  check(input, { provider, identityNumberPatterns }) {
    const virtualNin = isVirtualNin(input.number);
    if (virtualNin && input.idType !== 'nin')
      throw new InvalidInputError([
        { field: 'number', message: 'is a 16-character virtual NIN: a BVN is 11 digits (use idType nin for a vNIN)' },
      ]);
    // The app's own pattern describes the 11-digit number; a vNIN has its own fixed shape.
    const pattern = virtualNin ? undefined : identityNumberPatterns[input.idType];
    if (pattern && !pattern.test(input.number))
      throw new InvalidInputError([{ field: 'number', message: `is not a valid ${input.idType.toUpperCase()}` }]);
    // Every step of the ladder must have a provider before anything is stored or sent.
    for (const step of input.steps ?? ['otp']) {
      if (step === 'otp')
        requireCapabilityV1(provider, {
          capability: 'identity',
          idType: input.idType,
          ...(virtualNin ? { virtualNin: true } : {}),
        });
      else
        requireCapabilityV1(provider, {
          capability: 'identity-step',
          step,
          idType: input.idType,
          ...(virtualNin ? { virtualNin: true } : {}),
        });
    }
  },
  machineInput(input, { flowId, now, memory }, { secrets, policies }) {
    const first = input.steps?.[0] ?? 'otp';
    if (first === 'otp') memory.otp = generateOtp(policies.otpLength);
    return {
      flowId,
      now,
      idType: input.idType,
      numberMasked: mask(input.number),
      numberHash: secrets.hash(`number:${input.idType}`, input.number),
      numberSealed: secrets.seal(`number:${flowId}`, input.number),
      ...(input.steps === undefined ? {} : { steps: [...input.steps] }),
      ...(input.claims === undefined
        ? {}
        : { claimsSealed: secrets.seal(`claims:${flowId}`, JSON.stringify(input.claims)) }),
      ...(memory.otp === undefined ? {} : { otpHash: secrets.hash(`otp:${flowId}`, memory.otp) }),
    };
  },
  sendLimitKey: (context) => `${String(context.idType)}:${String(context.numberHash)}`,
  toEvent(event, { flowId, now, memory }, { secrets, policies }) {
    if (event.type === 'submit-code')
      return { type: event.type, now, codeHash: secrets.hash(`otp:${flowId}`, event.code) };
    if (event.type === 'submit-selfie') {
      // The selfie stays in memory for the face step's call; the machine sees only that it came.
      memory.image = event.image;
      return { type: event.type, now };
    }
    if (event.type !== 'resend') return { type: event.type, now };
    // The event may be computed again after a conflict: the same new OTP is hashed each time.
    memory.otp ??= generateOtp(policies.otpLength);
    return { type: event.type, now, otpHash: secrets.hash(`otp:${flowId}`, memory.otp) };
  },
  effects: {
    'identity.send-otp': {
      send: true,
      async run({ flowId, input, context, memory, env, committedContext }) {
        if (memory.otp === undefined) throw new ProviderProtocolError('no OTP in memory for this send');
        const sealed = (await committedContext()).numberSealed;
        if (typeof sealed !== 'string')
          throw new RecordSchemaError('the identity number is no longer held for this flow');
        const number = env.secrets.open(`number:${flowId}`, sealed);
        await env.provider.identity!.sendOtp(
          markParsedV1({ idType: input.idType as IdentityType, number, otp: memory.otp }),
          context,
        );
        return {};
      },
    },
    ...identityStepEffects,
  },
};
