import { phoneNumberKey, ussdRouteKey } from '../keys/store-keys.js';
import {
  markParsedV1,
  ProviderProtocolError,
  requireCapabilityV1,
  type UssdVerificationEventV1,
} from '@verikit/provider';
import type { SecretBox } from '../secrets/secrets.js';
import { plainUserEvent, type FlowDefinition } from './flow-definition.js';
import { createUssdMachine } from './ussd-machine.js';

type UssdStart = { kind: 'ussd'; phoneNumber: string };

function routeKey(secrets: SecretBox, phoneNumber: unknown): string {
  return ussdRouteKey(phoneNumberKey(secrets, phoneNumber));
}

/**
 * The route key before numbers were hashed in key names, still read (never written) so that a flow
 * started before an upgrade gets its result. Remove once no record of that age can be alive
 * (docs/decisions/0040-number-hashed-in-key-names.md).
 */
function legacyRouteKey(phoneNumber: unknown): string {
  return ussdRouteKey(String(phoneNumber));
}

/**
 * USSD OTP: the provider gives an OTP and a code to dial, and reports the dial by webhook. The flow
 * indexes its phone number, hashed (`ussd:phone:<hash>`), so that the webhook, which names only the
 * number, finds it.
 */
export const ussdFlow: FlowDefinition<UssdStart> = {
  kind: 'ussd',
  createMachine: createUssdMachine,
  userEvents: ['restart', 'cancel'],
  check: (_input, { provider }) => requireCapabilityV1(provider, { capability: 'ussd' }),
  machineInput: ({ phoneNumber }, { flowId, now }) => ({ flowId, now, phoneNumber }),
  sendLimitKey: (context, { secrets }) => phoneNumberKey(secrets, context.phoneNumber),
  toEvent: (event, { now }) => plainUserEvent(event, now),
  effects: {
    'ussd.initiate': {
      send: true,
      async run({ input, context, env }) {
        const result = await env.provider.ussd!.initiate(markParsedV1({ phoneNumber: input.phoneNumber! }), context);
        if (typeof result?.otp !== 'string' || typeof result.ussdCode !== 'string' || !result.otp || !result.ussdCode) {
          throw new ProviderProtocolError('the provider returned no otp or ussdCode', { field: 'otp' });
        }
        return {
          otp: result.otp,
          ussdCode: result.ussdCode,
          ...(result.reference ? { reference: result.reference } : {}),
        };
      },
    },
  },
  // A flow that starts waiting for the dial (again) becomes the number's active flow, the one the
  // service's result is routed to, for as long as its record lives. Only then: until the user has a
  // code to dial, a result can only be for an earlier flow.
  routes: (previous, next, { secrets }) =>
    next.value === 'awaiting-dial' && previous?.value !== 'awaiting-dial'
      ? [routeKey(secrets, next.context.phoneNumber)]
      : [],
  // The service verifies only its newest session for a number: the flow that held the route before ends
  // (`superseded`), so its page stops showing a code that can no longer work (decision 1280).
  supersedes: true,
  providerEvent: {
    type: 'ussd-verification',
    routeKeys: (event, { secrets }) =>
      event.type === 'ussd-verification'
        ? [routeKey(secrets, event.phoneNumber), legacyRouteKey(event.phoneNumber)]
        : [],
    toEvent: (event, now) => ({ type: 'ussd-result', now, status: (event as UssdVerificationEventV1).status }),
  },
};
