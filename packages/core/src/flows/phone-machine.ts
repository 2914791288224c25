import { and, assign, setup } from 'xstate';
import type { PhoneChannel } from '@verikit/provider';
import type { FlowPolicies } from './policies.js';
import {
  placeholderContext,
  beginEffect,
  beginSend,
  effectSettled,
  markEffectUnanswered,
  resendBlockedReason,
  sharedGuards,
  type BaseEvent,
  type EffectRequest,
  type FlowContextBase,
  type FlowError,
} from './shared.js';

/** The phone flow's context. The submitted code is never stored. */
export interface PhoneContext extends FlowContextBase {
  readonly phoneNumber: string;
  readonly channel: PhoneChannel;
  readonly from?: string;
  /** The newest send's; kept through a resend, which names it as `resendOf`, until the new one replaces it. */
  readonly requestId?: string;
  /** The provider that sent the newest code, when the provider reported it (failover): for logs and proofs, not the view. */
  readonly sentBy?: string;
  readonly attemptsLeft: number;
}

export interface PhoneInput {
  readonly flowId: string;
  readonly now: number;
  readonly phoneNumber: string;
  readonly channel: PhoneChannel;
  readonly from?: string;
}

export type PhoneEvent =
  | BaseEvent
  | { type: 'submit-code'; now: number; code: string }
  | { type: 'resend'; now: number };

/** Errors after which the provider cannot have checked the code. */
const retryableErrorCodes = new Set(['provider_unavailable', 'outcome_unknown']);

function errorOf(event: PhoneEvent): FlowError | undefined {
  return event.type === 'effect-failed' ? event.error : undefined;
}

const codeInvalidError: FlowError = Object.freeze({ code: 'code_invalid', message: 'the code is not correct' });
const attemptsExhaustedError: FlowError = Object.freeze({ code: 'attempts_exhausted', message: 'the provider allows no more attempts for this code' });

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
      runEffect: (_: unknown, _params: EffectRequest) => {},
      clearOnCancel: assign({ ...effectSettled, error: undefined }),
      codeSent: assign(({ event, context }) => ({
        ...effectSettled,
        requestId: event.type === 'effect-succeeded' ? String(event.result.requestId) : context.requestId,
        sentBy: event.type === 'effect-succeeded' && typeof event.result.sentBy === 'string' ? event.result.sentBy : undefined,
        expiresAt: event.now + policies.codeTtlMs,
        attemptsLeft: policies.maxAttempts,
        error: undefined,
      })),
      beginResend: assign(({ context, event }) => ({ ...beginSend(context, 'phone.send', event.now, policies), expiresAt: undefined })),
      // Only wrong codes use up attempts: the one taken when the code was submitted is given back.
      codeAccepted: assign(({ context }) => ({ ...effectSettled, error: undefined, attemptsLeft: context.attemptsLeft + 1 })),
      codeRefused: assign({ ...effectSettled, error: codeInvalidError }),
      attemptReturned: assign(({ context, event }) => ({ ...effectSettled, error: errorOf(event), attemptsLeft: context.attemptsLeft + 1 })),
      // The provider says the code can no longer be checked: the flow is expired now (an awaited check's attempt is given back).
      providerEnded: assign(({ context, event }) => ({
        ...effectSettled,
        error: undefined,
        expiresAt: Math.min(context.expiresAt ?? event.now, event.now),
        attemptsLeft: context.effect?.kind === 'phone.check' ? context.attemptsLeft + 1 : context.attemptsLeft,
      })),
      attemptsExhausted: assign({ ...effectSettled, attemptsLeft: 0, error: attemptsExhaustedError }),
    },
    guards: {
      ...sharedGuards,
      canResend: ({ context, event }) => resendBlockedReason(context, event.now, policies) === undefined,
      codeValid: ({ event }) => event.type === 'effect-succeeded' && event.result.valid === true,
      noAttemptsLeft: ({ context }) => context.attemptsLeft <= 0,
      lastAttempt: ({ context }) => context.attemptsLeft <= 1,
      // `not-pending` reaches a flow only before it recorded an approval (a verified flow takes no event): the code is spent.
      codeEndedAtProvider: ({ event }) => checkReason(event) === 'expired' || checkReason(event) === 'not-pending',
      providerAttemptsExhausted: ({ event }) => checkReason(event) === 'attempts-exhausted',
      providerUnavailable: ({ event }) => event.type === 'effect-failed' && retryableErrorCodes.has(event.error.code),
    },
  }).createMachine({
    id: 'phone',
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
          'effect-failed': { guard: 'isAwaitedEffect', target: 'send-failed', actions: assign(({ event }) => ({ ...effectSettled, error: event.error })) },
          tick: { guard: 'effectOverdue', target: 'send-failed', actions: assign(({ context }) => markEffectUnanswered(context)) },
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
            { guard: and(['isUnansweredEffect', 'providerAttemptsExhausted']), target: 'locked', actions: 'attemptsExhausted' },
            { guard: and(['isUnansweredEffect', 'codeValid']), target: 'verified', actions: assign({ ...effectSettled, error: undefined }) },
            { guard: and(['isUnansweredEffect', 'lastAttempt']), target: 'locked', actions: assign({ ...effectSettled, attemptsLeft: 0, error: codeInvalidError }) },
            { guard: 'isUnansweredEffect', actions: assign(({ context }) => ({ ...effectSettled, attemptsLeft: context.attemptsLeft - 1, error: codeInvalidError })) },
          ],
          cancel: { target: 'cancelled', actions: 'clearOnCancel' },
          'submit-code': {
            target: 'checking',
            actions: assign(({ context, event }) => ({
              ...beginEffect(context, 'phone.check', event.now, policies),
              attemptsLeft: context.attemptsLeft - 1,
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
            { guard: and(['isAwaitedEffect', 'providerAttemptsExhausted']), target: 'locked', actions: 'attemptsExhausted' },
            { guard: and(['isAwaitedEffect', 'codeValid']), target: 'verified', actions: 'codeAccepted' },
            { guard: and(['isAwaitedEffect', 'noAttemptsLeft']), target: 'locked', actions: 'codeRefused' },
            { guard: 'isAwaitedEffect', target: 'awaiting-code', actions: 'codeRefused' },
          ],
          'effect-failed': [
            // The provider could not check the code (unreachable, timed out): the attempt is given back.
            { guard: and(['isAwaitedEffect', 'providerUnavailable']), target: 'awaiting-code', actions: 'attemptReturned' },
            // The provider refused the check: the attempt counts.
            { guard: and(['isAwaitedEffect', 'noAttemptsLeft']), target: 'locked', actions: assign(({ event }) => ({ ...effectSettled, error: errorOf(event) })) },
            { guard: 'isAwaitedEffect', target: 'awaiting-code', actions: assign(({ event }) => ({ ...effectSettled, error: errorOf(event) })) },
          ],
          // No answer by the deadline: the user learnt nothing from the guess, so the attempt is given back; a
          // late answer is still applied in awaiting-code.
          tick: { guard: 'effectOverdue', target: 'awaiting-code', actions: assign(({ context }) => ({ ...markEffectUnanswered(context), attemptsLeft: context.attemptsLeft + 1 })) },
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
