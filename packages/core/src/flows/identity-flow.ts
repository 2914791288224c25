import {
  markParsedV1,
  InvalidInputError,
  isVirtualNin,
  ProviderProtocolError,
  requireCapabilityV1,
  type IdentityType,
} from '@verikit/provider';
import { RecordSchemaError } from '../errors/record-schema-error.js';
import { generateOtp, mask } from '../secrets/secrets.js';
import type { FlowDefinition } from './flow-definition.js';
import { createIdentityMachine } from './identity-machine.js';

type IdentityStart = { kind: 'identity'; idType: IdentityType; number: string };

/**
 * BVN/NIN verification with an OTP the engine generates. The OTP lives in memory for the send and is
 * stored only as a keyed hash; the number is stored masked, hashed (for the send limit) and sealed
 * under the flow id (for a resend), never in clear (docs/decisions/0003-identity-number-sealed.md).
 */
export const identityFlow: FlowDefinition<IdentityStart> = {
  kind: 'identity',
  createMachine: createIdentityMachine,
  userEvents: ['submit-code', 'resend', 'cancel'],
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
    requireCapabilityV1(provider, {
      capability: 'identity',
      idType: input.idType,
      ...(virtualNin ? { virtualNin: true } : {}),
    });
  },
  machineInput(input, { flowId, now, memory }, { secrets, policies }) {
    memory.otp = generateOtp(policies.otpLength);
    return {
      flowId,
      now,
      idType: input.idType,
      numberMasked: mask(input.number),
      numberHash: secrets.hash(`number:${input.idType}`, input.number),
      numberSealed: secrets.seal(`number:${flowId}`, input.number),
      otpHash: secrets.hash(`otp:${flowId}`, memory.otp),
    };
  },
  sendLimitKey: (context) => `${String(context.idType)}:${String(context.numberHash)}`,
  toEvent(event, { flowId, now, memory }, { secrets, policies }) {
    if (event.type === 'submit-code')
      return { type: event.type, now, codeHash: secrets.hash(`otp:${flowId}`, event.code) };
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
  },
};
