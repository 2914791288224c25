import { assign, setup } from 'xstate';
import type { FlowPolicies } from './policies.js';
import type { BaseEvent, FlowContextBase, FlowError, FlowLimits } from './flow-context.js';
import {
  placeholderContext,
  beginSend,
  effectSettled,
  resendBlockedReason,
  sentByOf,
  baseGuards,
  verifiedAt,
  baseActions,
  firstSend,
  onSendFailed,
  onEffectOverdue,
} from './machine-base.js';

/**
 * The USSD flow's context. `otp` and `ussdCode` come from the service and are shown to the user,
 * so they live here while the user may dial; they are removed when the flow ends.
 */
interface UssdContext extends FlowContextBase {
  readonly phoneNumber: string;
  readonly otp?: string;
  readonly ussdCode?: string;
  readonly reference?: string;
}

interface UssdInput {
  readonly flowId: string;
  readonly now: number;
  readonly phoneNumber: string;
}

type UssdEvent =
  | BaseEvent
  | { type: 'ussd-result'; now: number; status: 'success' | 'failed' }
  | { type: 'restart'; now: number }
  | { type: 'superseded'; now: number };

const dialFailedError: FlowError = Object.freeze({
  code: 'dial_failed',
  message: 'the service reported the USSD verification as failed',
});

const supersededError: FlowError = Object.freeze({
  code: 'superseded',
  message: 'a newer USSD verification for this number took over: restart to get a code that works',
});

/** Removes what was shown to the user once the flow can no longer be verified by dialling. */
const forgetCodes = { otp: undefined, ussdCode: undefined, reference: undefined } as const;

/**
 * USSD OTP verification: initiating → awaiting-dial → verified | failed | expired | cancelled.
 * The result arrives as the service's USSD_VERIFICATION webhook; a failed or expired flow may restart.
 * A newer flow that takes the number's route ends this one (`superseded`, failed).
 */
export function createUssdMachine(policies: FlowPolicies) {
  return setup({
    types: {} as { context: UssdContext; events: UssdEvent; input: UssdInput },
    actions: {
      ...baseActions<UssdContext, UssdEvent>(),
      dialShown: assign(({ context, event }) => {
        const result = event.type === 'effect-succeeded' ? event.result : {};
        return {
          ...effectSettled,
          sentBy: sentByOf(context, event),
          otp: String(result.otp),
          ussdCode: String(result.ussdCode),
          reference: typeof result.reference === 'string' ? result.reference : undefined,
          expiresAt: event.now + policies.codeTtlMs,
          error: undefined,
        };
      }),
      beginRestart: assign(({ context, event }) => ({
        ...beginSend(context, 'ussd.initiate', event.now, policies),
        ...forgetCodes,
        expiresAt: undefined,
      })),
    },
    guards: {
      ...baseGuards,
      canRestart: ({ context, event }) => resendBlockedReason(context, event.now, policies) === undefined,
      dialSucceeded: ({ event }) => event.type === 'ussd-result' && event.status === 'success',
    },
  }).createMachine({
    id: 'ussd',
    meta: { maxSendsPerFlow: policies.maxSendsPerFlow } satisfies FlowLimits,
    context: ({ input }) => {
      if (input === undefined) return placeholderContext as UssdContext;
      return { ...firstSend(input, 'ussd.initiate', policies), phoneNumber: input.phoneNumber };
    },
    initial: 'initiating',
    states: {
      initiating: {
        entry: {
          type: 'runEffect',
          params: ({ context }) => ({
            id: context.effect!.id,
            kind: 'ussd.initiate',
            input: { phoneNumber: context.phoneNumber },
          }),
        },
        on: {
          'effect-succeeded': { guard: 'isAwaitedEffect', target: 'awaiting-dial', actions: 'dialShown' },
          'effect-failed': onSendFailed('failed'),
          tick: onEffectOverdue('failed'),
          cancel: { target: 'cancelled', actions: assign({ ...effectSettled }) },
        },
      },
      'awaiting-dial': {
        on: {
          'ussd-result': [
            {
              guard: 'dialSucceeded',
              target: 'verified',
              actions: assign(({ event }) => ({ ...forgetCodes, error: undefined, ...verifiedAt(event) })),
            },
            { target: 'failed', actions: assign({ ...forgetCodes, error: dialFailedError }) },
          ],
          tick: { guard: 'codeExpired', target: 'expired', actions: assign(forgetCodes) },
          // A newer flow for the number took its route (decision 1280): the service's session is no longer this one.
          superseded: { target: 'failed', actions: assign({ ...forgetCodes, error: supersededError }) },
          cancel: { target: 'cancelled', actions: assign(forgetCodes) },
        },
      },
      failed: {
        on: {
          // A late answer to an initiation whose deadline passed still shows the code.
          'effect-succeeded': { guard: 'isUnansweredEffect', target: 'awaiting-dial', actions: 'dialShown' },
          restart: { guard: 'canRestart', target: 'initiating', actions: 'beginRestart' },
          cancel: { target: 'cancelled', actions: assign(effectSettled) },
        },
      },
      expired: {
        on: {
          restart: { guard: 'canRestart', target: 'initiating', actions: 'beginRestart' },
          cancel: { target: 'cancelled' },
        },
      },
      verified: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });
}
