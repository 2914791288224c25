import { and, assign, setup } from 'xstate';
import type { PhoneChannel } from '@verikit/provider';
import type { FlowPolicies } from './policies.js';
import type { BaseEvent, FlowContextBase, FlowError, FlowLimits } from './flow-context.js';
import {
  placeholderContext,
  beginEffect,
  beginSend,
  effectSettled,
  markEffectUnanswered,
  resendBlockedReason,
  sendFailed,
  sentByOf,
  baseGuards,
  verifiedAt,
  baseActions,
} from './machine-base.js';

/** The phone flow's context. The submitted code is never stored. */
interface PhoneContext extends FlowContextBase {
  readonly phoneNumber: string;
  readonly channel: PhoneChannel;
  readonly from?: string;
  /** The newest send's; kept through a resend, which names it as `resendOf`, until the new one replaces it. */
  readonly requestId?: string;
  readonly attemptsLeft: number;
}

interface PhoneInput {
  readonly flowId: string;
  readonly now: number;
  readonly phoneNumber: string;
  readonly channel: PhoneChannel;
  readonly from?: string;
}

type PhoneEvent = BaseEvent | { type: 'submit-code'; now: number; code: string } | { type: 'resend'; now: number };

/** Errors after which the provider cannot have checked the code. */
const retryableErrorCodes = new Set(['provider_unavailable', 'outcome_unknown']);

function errorOf(event: PhoneEvent): FlowError | undefined {
  return event.type === 'effect-failed' ? event.error : undefined;
}

const codeInvalidError: FlowError = Object.freeze({ code: 'code_invalid', message: 'the code is not correct' });
const attemptsExhaustedError: FlowError = Object.freeze({
  code: 'attempts_exhausted',
  message: 'the provider allows no more attempts for this code',
});

/** The provider's reason for a code that is not valid (`expired`, `attempts-exhausted`, `not-pending`), if it gave one. */
function checkReason(event: PhoneEvent): unknown {
  return event.type === 'effect-succeeded' && event.result.valid === false ? event.result.reason : undefined;
}

/**
 * Phone verification where the provider generates and checks the code:
 * sending → awaiting-code → checking → verified, with attempts, lock-out, expiry and resend.
 */
export function createPhoneMachine(policies: FlowPolicies) {
  return setup({
    types: {} as { context: PhoneContext; events: PhoneEvent; input: PhoneInput },
    actions: {
      ...baseActions,
      clearOnCancel: assign({ ...effectSettled, error: undefined }),
      codeSent: assign(({ event, context }) => ({
        ...effectSettled,
        requestId: event.type === 'effect-succeeded' ? String(event.result.requestId) : context.requestId,
        sentBy: sentByOf(context, event),
        expiresAt: event.now + policies.codeTtlMs,
        attemptsLeft: policies.maxAttempts,
        error: undefined,
      })),
      beginResend: assign(({ context, event }) => ({
        ...beginSend(context, 'phone.send', event.now, policies),
        expiresAt: undefined,
      })),
      // Only a refused check uses an attempt, when its answer arrives: while checking, the view shows the
      // attempts as before the check, so `attemptsLeft` never goes up again (docs/decisions/0051-attempts-never-given-back.md).
      codeAccepted: assign(({ event }) => ({ ...effectSettled, error: undefined, ...verifiedAt(event) })),
      attemptUsed: assign(({ context, event }) => ({
        ...effectSettled,
        attemptsLeft: context.attemptsLeft - 1,
        error: errorOf(event) ?? codeInvalidError,
      })),
      lockedOut: assign(({ event }) => ({
        ...effectSettled,
        attemptsLeft: 0,
        error: errorOf(event) ?? codeInvalidError,
      })),
      checkNotMade: assign(({ event }) => ({ ...effectSettled, error: errorOf(event) })),
      // The provider says the code can no longer be checked: the flow is expired now (no attempt is used).
      providerEnded: assign(({ context, event }) => ({
        ...effectSettled,
        error: undefined,
        expiresAt: Math.min(context.expiresAt ?? event.now, event.now),
      })),
      attemptsExhausted: assign({ ...effectSettled, attemptsLeft: 0, error: attemptsExhaustedError }),
    },
    guards: {
      ...baseGuards,
      canResend: ({ context, event }) => resendBlockedReason(context, event.now, policies) === undefined,
      codeValid: ({ event }) => event.type === 'effect-succeeded' && event.result.valid === true,
      lastAttempt: ({ context }) => context.attemptsLeft <= 1,
      // `not-pending` reaches a flow only before it recorded an approval (a verified flow takes no event): the code is spent.
      codeEndedAtProvider: ({ event }) => checkReason(event) === 'expired' || checkReason(event) === 'not-pending',
      providerAttemptsExhausted: ({ event }) => checkReason(event) === 'attempts-exhausted',
      providerUnavailable: ({ event }) => event.type === 'effect-failed' && retryableErrorCodes.has(event.error.code),
    },
  }).createMachine({
    id: 'phone',
    meta: { maxAttempts: policies.maxAttempts, maxSendsPerFlow: policies.maxSendsPerFlow } satisfies FlowLimits,
    // The inert actor behind the pure transitions is built without input: answer it instead of throwing.
    context: ({ input }) => {
      if (input === undefined) return placeholderContext as PhoneContext;
      const base = { flowId: input.flowId, effectSeq: 0, sendCount: 0 };
      return {
        ...base,
        ...beginSend(base, 'phone.send', input.now, policies),
        phoneNumber: input.phoneNumber,
        channel: input.channel,
        ...(input.from === undefined ? {} : { from: input.from }),
        attemptsLeft: policies.maxAttempts,
      };
    },
    initial: 'sending',
    states: {
      sending: {
        entry: {
          type: 'runEffect',
          params: ({ context }) => ({
            id: context.effect!.id,
            kind: 'phone.send',
            input: {
              phoneNumber: context.phoneNumber,
              channel: context.channel,
              ...(context.from ? { from: context.from } : {}),
              ...(context.requestId ? { resendOf: context.requestId } : {}),
            },
          }),
        },
        on: {
          'effect-succeeded': { guard: 'isAwaitedEffect', target: 'awaiting-code', actions: 'codeSent' },
          cancel: { target: 'cancelled', actions: 'clearOnCancel' },
          'effect-failed': {
            guard: 'isAwaitedEffect',
            target: 'send-failed',
            actions: assign(({ context, event }) => sendFailed(context, event)),
          },
          tick: {
            guard: 'effectOverdue',
            target: 'send-failed',
            actions: assign(({ context }) => markEffectUnanswered(context)),
          },
        },
      },
      'send-failed': {
        on: {
          'effect-succeeded': { guard: 'isUnansweredEffect', target: 'awaiting-code', actions: 'codeSent' },
          cancel: { target: 'cancelled', actions: 'clearOnCancel' },
          resend: { guard: 'canResend', target: 'sending', actions: 'beginResend' },
        },
      },
      'awaiting-code': {
        on: {
          tick: { guard: 'codeExpired', target: 'expired' },
          // A late answer to a check whose deadline passed (its attempt was given back then).
          'effect-succeeded': [
            { guard: and(['isUnansweredEffect', 'codeEndedAtProvider']), target: 'expired', actions: 'providerEnded' },
            {
              guard: and(['isUnansweredEffect', 'providerAttemptsExhausted']),
              target: 'locked',
              actions: 'attemptsExhausted',
            },
            { guard: and(['isUnansweredEffect', 'codeValid']), target: 'verified', actions: 'codeAccepted' },
            { guard: and(['isUnansweredEffect', 'lastAttempt']), target: 'locked', actions: 'lockedOut' },
            { guard: 'isUnansweredEffect', actions: 'attemptUsed' },
          ],
          cancel: { target: 'cancelled', actions: 'clearOnCancel' },
          'submit-code': {
            target: 'checking',
            actions: assign(({ context, event }) => ({
              ...beginEffect(context, 'phone.check', event.now, policies),
              error: undefined,
            })),
          },
          resend: { guard: 'canResend', target: 'sending', actions: 'beginResend' },
        },
      },
      checking: {
        entry: {
          type: 'runEffect',
          params: ({ context, event }) => ({
            id: context.effect!.id,
            kind: 'phone.check',
            input: { requestId: context.requestId ?? '', code: event.type === 'submit-code' ? event.code : '' },
          }),
        },
        on: {
          cancel: { target: 'cancelled', actions: 'clearOnCancel' },
          'effect-succeeded': [
            { guard: and(['isAwaitedEffect', 'codeEndedAtProvider']), target: 'expired', actions: 'providerEnded' },
            {
              guard: and(['isAwaitedEffect', 'providerAttemptsExhausted']),
              target: 'locked',
              actions: 'attemptsExhausted',
            },
            { guard: and(['isAwaitedEffect', 'codeValid']), target: 'verified', actions: 'codeAccepted' },
            { guard: and(['isAwaitedEffect', 'lastAttempt']), target: 'locked', actions: 'lockedOut' },
            { guard: 'isAwaitedEffect', target: 'awaiting-code', actions: 'attemptUsed' },
          ],
          'effect-failed': [
            // The provider could not check the code (unreachable, timed out): no attempt is used.
            {
              guard: and(['isAwaitedEffect', 'providerUnavailable']),
              target: 'awaiting-code',
              actions: 'checkNotMade',
            },
            // The provider refused the check: the attempt counts.
            { guard: and(['isAwaitedEffect', 'lastAttempt']), target: 'locked', actions: 'lockedOut' },
            { guard: 'isAwaitedEffect', target: 'awaiting-code', actions: 'attemptUsed' },
          ],
          // No answer by the deadline: the user learnt nothing from the guess, so no attempt is used; a
          // late answer is still applied in awaiting-code.
          tick: {
            guard: 'effectOverdue',
            target: 'awaiting-code',
            actions: assign(({ context }) => markEffectUnanswered(context)),
          },
        },
      },
      expired: {
        on: {
          resend: { guard: 'canResend', target: 'sending', actions: 'beginResend' },
          cancel: { target: 'cancelled', actions: 'clearOnCancel' },
        },
      },
      verified: { type: 'final' },
      locked: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });
}
