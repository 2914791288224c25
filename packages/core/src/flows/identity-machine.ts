import { timingSafeEqual } from 'node:crypto';
import { and, assign, setup } from 'xstate';
import type { IdentityStep, IdentityType } from '@verikit/provider';
import type { FlowPolicies } from './policies.js';
import type { BaseEvent, FlowError, FlowLimits } from './flow-context.js';
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
  beginEffect,
  effectSettled as settled,
} from './machine-base.js';
import { advance, ladderGuards, passStep, stepEffects, stepFailure, type LadderContext } from './identity-ladder.js';

/**
 * The BVN/NIN flow's context. The OTP is kept only as a keyed hash; the number only masked, as a
 * keyed hash (for per-number limits) and sealed (AES-GCM) so that a resend, or a later step, can reach the provider;
 * a match's claims only sealed, until the match. Hashes and sealed values are removed when the flow ends.
 */
interface IdentityContext extends LadderContext {
  readonly idType: IdentityType;
  readonly numberMasked: string;
  readonly numberHash: string;
  readonly numberSealed?: string;
  readonly claimsSealed?: string;
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
  /** The ladder; absent: `['otp']`. */
  readonly steps?: readonly IdentityStep[];
  /** The match's claims, sealed; only with a match step. */
  readonly claimsSealed?: string;
  /** The keyed hash of the OTP the engine generated; the OTP itself never enters the machine. */
  readonly otpHash?: string;
}

type IdentityEvent =
  | BaseEvent
  /** `codeHash` is the keyed hash of the submitted code; the code itself never enters the machine. */
  | { type: 'submit-code'; now: number; codeHash: string }
  | { type: 'resend'; now: number; otpHash: string }
  | { type: 'consent-given'; now: number }
  /** The selfie itself never enters the machine: it is in the engine's memory for the face step's call. */
  | { type: 'submit-selfie'; now: number };

const codeInvalidError: FlowError = Object.freeze({ code: 'code_invalid', message: 'the code is not correct' });
const forgetSecrets = {
  otpHash: undefined,
  numberSealed: undefined,
  claimsSealed: undefined,
  consentUrl: undefined,
  consentReference: undefined,
} as const;

function hashesEqual(a: string | undefined, b: string): boolean {
  if (a === undefined || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** The error of a step whose provider did not answer in time. */
const stepUnanswered: FlowError = Object.freeze({
  code: 'outcome_unknown',
  message: 'the identity provider did not answer in time; try the step again',
});

/**
 * BVN/NIN verification: a ladder of steps the app chooses (docs/flows.md, "The identity ladder"), by default the
 * OTP alone: sending → awaiting-code → verified, with attempts, lock-out, expiry and resend (a new code each time).
 * A `match`, `consent` or `face` step runs its provider call in `checking`; consent then waits for the user in
 * `awaiting-consent`, a face step for the selfie in `awaiting-selfie`. A step that does not pass ends the flow
 * `failed`; after the last step it is `verified`.
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
      codeAccepted: assign({ ...effectSettled, otpHash: undefined, error: undefined }),
      passStep: assign(({ context, event }) => passStep(context, event)),
      climbed: assign(({ event }) => ({ ...settled, ...forgetSecrets, error: undefined, ...verifiedAt(event) })),
      beginMatch: assign(({ context, event }) => ({
        ...beginEffect(context, stepEffects.match, event.now, policies),
        error: undefined,
      })),
      beginConsent: assign(({ context, event }) => ({
        ...beginEffect(context, stepEffects.consent, event.now, policies),
        error: undefined,
      })),
      beginConsentCheck: assign(({ context, event }) => ({
        ...beginEffect(context, 'identity.consent-status', event.now, policies),
        error: undefined,
      })),
      beginFace: assign(({ context, event }) => ({
        ...beginEffect(context, stepEffects.face, event.now, policies),
        error: undefined,
      })),
      beginOtp: assign(({ context, event }) => ({
        ...beginSend(context, 'identity.send-otp', event.now, policies),
        // A step before the OTP made it (kept in memory) and returned its keyed hash with its result.
        otpHash: event.type === 'effect-succeeded' ? (event.result.otpHash as string | undefined) : context.otpHash,
        expiresAt: event.now + policies.codeTtlMs,
        attemptsLeft: policies.maxAttempts,
      })),
      awaitSelfie: assign(({ event }) => ({ ...settled, error: undefined, expiresAt: event.now + policies.codeTtlMs })),
      consentAsked: assign(({ event }) => {
        const result = event.type === 'effect-succeeded' ? event.result : {};
        return {
          ...settled,
          error: undefined,
          expiresAt: event.now + policies.codeTtlMs,
          consentReference: typeof result.reference === 'string' ? result.reference : undefined,
          consentUrl: typeof result.url === 'string' ? result.url : undefined,
        };
      }),
      consentStillPending: assign({
        ...settled,
        error: { code: 'consent_pending', message: 'the consent request is not answered yet' },
      }),
      stepFailed: assign(({ event }) => ({ ...settled, ...forgetSecrets, error: stepFailure(event) })),
      stepErrored: assign(({ context, event }) => ({
        ...settled,
        ...forgetSecrets,
        error: event.type === 'effect-failed' ? event.error : context.error,
      })),
      stepRetryable: assign(({ context, event }) => ({
        ...settled,
        error: event.type === 'effect-failed' ? event.error : context.error,
      })),
      stepOverdue: assign({ ...settled, ...forgetSecrets, error: stepUnanswered }),
      stepOverdueRetryable: assign({ ...settled, error: stepUnanswered }),
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
      ...ladderGuards,
      canResend: ({ context, event }) =>
        ladderGuards.atOtpStep({ context, event }) && resendBlockedReason(context, event.now, policies) === undefined,
      codeMatches: ({ context, event }) => event.type === 'submit-code' && hashesEqual(context.otpHash, event.codeHash),
      lastAttempt: ({ context }) => context.attemptsLeft <= 1,
      outcomeUnknown: ({ context }) => context.unansweredEffectId !== undefined,
      firstIsOtp: ({ context }) => (context.steps ?? ['otp'])[0] === 'otp',
      firstIsFace: ({ context }) => context.steps?.[0] === 'face',
      faceStep: ({ context }) => context.effect?.kind === 'identity.face',
      consentCheck: ({ context }) => context.effect?.kind === 'identity.consent-status',
      consentRequest: ({ context }) => context.effect?.kind === 'identity.consent-request',
    },
  });
  const codeAccepted = advance('codeMatches', ['codeAccepted'], 'otp');
  return machineSetup.createMachine({
    id: 'identity',
    meta: { maxAttempts: policies.maxAttempts, maxSendsPerFlow: policies.maxSendsPerFlow } satisfies FlowLimits,
    context: ({ input }) => {
      if (input === undefined) return placeholderContext as IdentityContext;
      const first = input.steps?.[0] ?? 'otp';
      const ladder = input.steps === undefined ? {} : { steps: input.steps, stepIndex: 0, passed: [] };
      const common = {
        idType: input.idType,
        numberMasked: input.numberMasked,
        numberHash: input.numberHash,
        numberSealed: input.numberSealed,
        ...(input.claimsSealed === undefined ? {} : { claimsSealed: input.claimsSealed }),
        ...ladder,
        attemptsLeft: policies.maxAttempts,
      };
      if (first === 'otp')
        return {
          ...firstSend(input, 'identity.send-otp', policies),
          ...common,
          otpHash: input.otpHash,
          // The OTP is valid from when it was generated.
          expiresAt: input.now + policies.codeTtlMs,
        };
      const base = { flowId: input.flowId, effectSeq: 0, sendCount: 0 };
      return {
        ...base,
        ...(first === 'face' ? {} : beginEffect(base, stepEffects[first], input.now, policies)),
        ...common,
        expiresAt: input.now + policies.codeTtlMs,
      };
    },
    initial: 'starting',
    states: {
      // Only routes the first snapshot to the ladder's first step: no snapshot is ever in it.
      starting: {
        always: [
          { guard: 'firstIsOtp', target: 'sending' },
          { guard: 'firstIsFace', target: 'awaiting-selfie' },
          { target: 'checking' },
        ],
      },
      checking: {
        entry: {
          type: 'runEffect',
          params: ({ context }) => ({
            id: context.effect!.id,
            kind: context.effect!.kind,
            // The step before an OTP makes the OTP (in memory) and returns its hash with its answer.
            input: {
              idType: context.idType,
              otpNext: String(ladderGuards.nextIsOtp({ context, event: { type: '' } })),
            },
          }),
        },
        on: {
          'effect-succeeded': [
            {
              guard: and(['isAwaitedEffect', 'consentRequested']),
              target: 'awaiting-consent',
              actions: 'consentAsked',
            },
            {
              guard: and(['isAwaitedEffect', 'consentPending']),
              target: 'awaiting-consent',
              actions: 'consentStillPending',
            },
            ...advance(and(['isAwaitedEffect', 'stepPassed']), []),
            { guard: 'isAwaitedEffect', target: 'failed', actions: 'stepFailed' },
          ],
          'effect-failed': [
            { guard: and(['isAwaitedEffect', 'faceStep']), target: 'awaiting-selfie', actions: 'stepRetryable' },
            { guard: and(['isAwaitedEffect', 'consentCheck']), target: 'awaiting-consent', actions: 'stepRetryable' },
            { guard: 'isAwaitedEffect', target: 'failed', actions: 'stepErrored' },
          ],
          tick: [
            { guard: and(['effectOverdue', 'faceStep']), target: 'awaiting-selfie', actions: 'stepOverdueRetryable' },
            {
              guard: and(['effectOverdue', 'consentCheck']),
              target: 'awaiting-consent',
              actions: 'stepOverdueRetryable',
            },
            { guard: 'effectOverdue', target: 'failed', actions: 'stepOverdue' },
          ],
          cancel: onCancel,
        },
      },
      'awaiting-consent': {
        on: {
          tick: { guard: 'codeExpired', target: 'expired', actions: assign({ ...forgetSecrets }) },
          'consent-given': { target: 'checking', actions: 'beginConsentCheck' },
          cancel: onCancel,
        },
      },
      'awaiting-selfie': {
        on: {
          tick: { guard: 'codeExpired', target: 'expired', actions: assign({ ...forgetSecrets }) },
          'submit-selfie': { target: 'checking', actions: 'beginFace' },
          cancel: onCancel,
        },
      },
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
            ...advance(and(['outcomeUnknown', 'codeMatches']), ['codeAccepted'], 'otp'),
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
            ...codeAccepted,
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
      failed: { type: 'final' },
      locked: { type: 'final' },
      cancelled: { type: 'final' },
    },
  });
}
