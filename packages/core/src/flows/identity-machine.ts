import { timingSafeEqual } from 'node:crypto';
import { and, assign, setup } from 'xstate';
import type { IdentityType } from '@verikit/provider';
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
  onResend,
  onCancel,
} from './machine-base.js';

/**
 * The BVN/NIN flow's context. The OTP is kept only as a keyed hash; the number only masked, as a
 * keyed hash (for per-number limits) and sealed (AES-GCM) so that a resend can reach the provider.
 * Hash and sealed number are removed when the flow ends.
 */
interface IdentityContext extends FlowContextBase {
  readonly idType: IdentityType;
  readonly numberMasked: string;
  readonly numberHash: string;
  readonly numberSealed?: string;
  readonly otpHash?: string;
  readonly attemptsLeft: number;
}

interface IdentityInput {
  readonly flowId: string;
  readonly now: number;
  readonly idType: IdentityType;
  readonly numberMasked: string;
  readonly numberHash: string;
  readonly numberSealed: string;
  /** The keyed hash of the OTP the engine generated; the OTP itself never enters the machine. */
  readonly otpHash: string;
}

type IdentityEvent =
  | BaseEvent
  /** `codeHash` is the keyed hash of the submitted code; the code itself never enters the machine. */
  | { type: 'submit-code'; now: number; codeHash: string }
  | { type: 'resend'; now: number; otpHash: string };

const codeInvalidError: FlowError = Object.freeze({ code: 'code_invalid', message: 'the code is not correct' });
const forgetSecrets = { otpHash: undefined, numberSealed: undefined } as const;

function hashesEqual(a: string | undefined, b: string): boolean {
  if (a === undefined || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/**
 * BVN/NIN verification with an OTP the engine generates and the provider delivers to the phone
 * registered for the number: sending → awaiting-code → verified, with attempts, lock-out, expiry
 * and resend (a new code each time).
 */
export function createIdentityMachine(policies: FlowPolicies) {
  const machineSetup = setup({
    types: {} as { context: IdentityContext; events: IdentityEvent; input: IdentityInput },
    actions: {
      ...baseActions<IdentityContext, IdentityEvent>(),
      clearOnCancel: assign({ ...effectSettled, ...forgetSecrets, error: undefined }),
      otpSent: assign(({ context, event }) => ({
        ...effectSettled,
        error: undefined,
        sentBy: sentByOf(context, event),
      })),
      codeAccepted: assign(({ event }) => ({
        ...effectSettled,
        ...forgetSecrets,
        error: undefined,
        ...verifiedAt(event),
      })),
      lockedOut: assign({ ...forgetSecrets, attemptsLeft: 0, error: codeInvalidError }),
      attemptUsed: assign(({ context }) => ({ attemptsLeft: context.attemptsLeft - 1, error: codeInvalidError })),
      beginResend: assign(({ context, event }) => ({
        ...beginSend(context, 'identity.send-otp', event.now, policies),
        otpHash: event.type === 'resend' ? event.otpHash : undefined,
        expiresAt: event.now + policies.codeTtlMs,
        attemptsLeft: policies.maxAttempts,
      })),
    },
    guards: {
      ...baseGuards,
      canResend: ({ context, event }) => resendBlockedReason(context, event.now, policies) === undefined,
      codeMatches: ({ context, event }) => event.type === 'submit-code' && hashesEqual(context.otpHash, event.codeHash),
      lastAttempt: ({ context }) => context.attemptsLeft <= 1,
      outcomeUnknown: ({ context }) => context.unansweredEffectId !== undefined,
    },
  });
  return machineSetup.createMachine({
    id: 'identity',
    meta: { maxAttempts: policies.maxAttempts, maxSendsPerFlow: policies.maxSendsPerFlow } satisfies FlowLimits,
    context: ({ input }) => {
      if (input === undefined) return placeholderContext as IdentityContext;
      return {
        ...firstSend(input, 'identity.send-otp', policies),
        idType: input.idType,
        numberMasked: input.numberMasked,
        numberHash: input.numberHash,
        numberSealed: input.numberSealed,
        otpHash: input.otpHash,
        // The OTP is valid from when it was generated.
        expiresAt: input.now + policies.codeTtlMs,
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
            kind: 'identity.send-otp',
            input: { idType: context.idType },
          }),
        },
        on: {
          'effect-succeeded': { guard: 'isAwaitedEffect', target: 'awaiting-code', actions: 'otpSent' },
          cancel: onCancel,
          'effect-failed': onSendFailed('send-failed'),
          tick: onEffectOverdue('send-failed'),
        },
      },
      'send-failed': {
        on: {
          // The OTP whose hash is stored expires here too: past expiresAt it can no longer be entered.
          tick: { guard: 'codeExpired', target: 'expired', actions: assign({ otpHash: undefined }) },
          // The send's outcome is unknown: the OTP whose hash is stored may have arrived.
          'submit-code': [
            { guard: and(['outcomeUnknown', 'codeMatches']), target: 'verified', actions: 'codeAccepted' },
            { guard: and(['outcomeUnknown', 'lastAttempt']), target: 'locked', actions: 'lockedOut' },
            { guard: 'outcomeUnknown', actions: 'attemptUsed' },
          ],
          'effect-succeeded': { guard: 'isUnansweredEffect', target: 'awaiting-code', actions: 'otpSent' },
          cancel: onCancel,
          resend: onResend,
        },
      },
      'awaiting-code': {
        on: {
          tick: { guard: 'codeExpired', target: 'expired', actions: assign({ otpHash: undefined }) },
          cancel: onCancel,
          'submit-code': [
            { guard: 'codeMatches', target: 'verified', actions: 'codeAccepted' },
            { guard: 'lastAttempt', target: 'locked', actions: 'lockedOut' },
            { actions: 'attemptUsed' },
          ],
          resend: onResend,
        },
      },
      expired: {
        on: {
          resend: onResend,
          cancel: onCancel,
        },
      },
      verified: { type: 'final' },
      locked: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });
}
