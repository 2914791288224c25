import { requireCapabilityV1, type DialInEventV1, type ProviderV1 } from '@verikit/provider';
import { dialInReservationKey, dialInRouteKey, phoneNumberKey } from '../keys/store-keys.js';
import { generateOtp, type SecretBox } from '../secrets/secrets.js';
import type { FlowDefinition } from './flow-definition.js';
import { createDialInMachine } from './dial-in-machine.js';

type DialInStart = { kind: 'dial-in'; phoneNumber?: string | undefined };

/**
 * Digits of a reference (decision 1120). Verifying a number, a reference only has to differ from the other
 * live references of that number; recording who dials, it must differ from every live reference.
 */
const dialInReferenceDigits = Object.freeze({ match: 6, identify: 8 });

/** The keyed hash of a reference typed from `phoneNumber` (empty: typed from any number). */
function referenceHash(secrets: SecretBox, phoneNumber: string, reference: string): string {
  return secrets.hash('dial-in:reference', `${phoneNumber}\0${reference}`);
}

/** A new reference for a flow verifying `phoneNumber` (or recording who dials): the code to dial and its hash. */
function newReference(provider: ProviderV1, secrets: SecretBox, phoneNumber: string | undefined) {
  const reference = generateOtp(
    phoneNumber === undefined ? dialInReferenceDigits.identify : dialInReferenceDigits.match,
  );
  const serviceCode = provider.dialIn!.serviceCode;
  return {
    ussdCode: `${serviceCode.slice(0, -1)}*${reference}#`,
    referenceHash: referenceHash(secrets, phoneNumber ?? '', reference),
  };
}

/**
 * Dial-in: the user dials the provider's USSD service code with a one-time reference after it, and the carrier
 * reports which number dialled. Nothing is sent. The flow's route is the keyed hash of its reference (with the
 * number it verifies), so a dial finds it only with the right reference, and, verifying a number, from it.
 */
export const dialInFlow: FlowDefinition<DialInStart> = {
  kind: 'dial-in',
  createMachine: createDialInMachine,
  userEvents: ['cancel'],
  check: (_input, { provider }) => requireCapabilityV1(provider, { capability: 'dial-in' }),
  machineInput: ({ phoneNumber }, { flowId, now }, { provider, secrets }) => ({
    flowId,
    now,
    ...(phoneNumber === undefined ? {} : { phoneNumber }),
    ...newReference(provider, secrets, phoneNumber),
  }),
  // Nothing is sent, but a start still counts against the number's hourly limit: it bounds how many live
  // references an attacker can hold for one number. Recording who dials, the flow has no number yet.
  sendLimitKey: (context, { secrets }) =>
    context.phoneNumber === undefined || context.mode === 'identify'
      ? `dial-in:flow:${String(context.flowId)}`
      : phoneNumberKey(secrets, context.phoneNumber),
  // Recording who dials, every such start of one owner (or idempotency key) is the same start: its retry returns it.
  startKey: (context, env) =>
    context.phoneNumber === undefined || context.mode === 'identify'
      ? 'dial-in:identify'
      : phoneNumberKey(env.secrets, context.phoneNumber),
  // No two live flows share a reference (with the number verified, if any): a start whose reference is taken draws
  // another (decision 1440).
  reservations: (input) => [dialInReservationKey(input.referenceHash as string)],
  // Only `cancel` is known (`userEvents`): an expired reference is never renewed, a new flow gets a new one.
  toEvent: (event, { now }) => ({ type: event.type, now }),
  effects: {},
  // A flow that (again) awaits a dial is routed to by its reference's hash, for as long as its record lives.
  routes: (previous, next) => {
    const hash = next.context.referenceHash as string | undefined;
    return next.value === 'awaiting-dial' && hash !== undefined && previous?.context.referenceHash !== hash
      ? [dialInRouteKey(hash)]
      : [];
  },
  providerEvent: {
    type: 'dial-in',
    routeKeys: (event, { secrets }) => {
      if (event.type !== 'dial-in') return [];
      return [
        dialInRouteKey(referenceHash(secrets, event.phoneNumber, event.reference)),
        dialInRouteKey(referenceHash(secrets, '', event.reference)),
      ];
    },
    toEvent: (event, now, { secrets }) => {
      const dial = event as DialInEventV1;
      return {
        type: 'dial',
        now,
        phoneNumber: dial.phoneNumber,
        matchHash: referenceHash(secrets, dial.phoneNumber, dial.reference),
        anyHash: referenceHash(secrets, '', dial.reference),
      };
    },
  },
};
