import type { FlowPolicies } from './policies.js';

/** The kinds of flow verikit runs. */
export type FlowKind = 'ussd' | 'phone' | 'identity';

/** The provider calls a flow can ask the engine to make. */
export type EffectKind = 'ussd.initiate' | 'phone.send' | 'phone.check' | 'identity.send-otp';

/** An error shown on a flow: safe to render, never carries a secret. */
export interface FlowError {
  /** Stable and machine-readable, e.g. `send_failed`: what a UI branches on. */
  readonly code: string;
  /** Developer English; never holds a secret, a code or a full identity number. */
  readonly message: string;
}

/** A provider call committed with the snapshot before it runs. */
interface PendingEffect {
  /** Deterministic: `flowId:effect:n`. */
  readonly id: string;
  readonly kind: EffectKind;
  /** After this instant (ms since epoch) the outcome counts as unknown. */
  readonly deadline: number;
}

/** What the engine receives from a machine's `runEffect` action. */
export interface EffectRequest {
  readonly id: string;
  readonly kind: EffectKind;
  /** Inputs for the provider that are not secret and not in context. The engine adds secrets it holds in memory. */
  readonly input: Readonly<Record<string, string>>;
}

/** Fields every flow's context has. */
export interface FlowContextBase {
  readonly flowId: string;
  /** How many effects this flow has started; the next effect id ends with `effectSeq + 1`. */
  readonly effectSeq: number;
  /** The effect awaited now. */
  readonly effect?: PendingEffect;
  /** The id of an effect whose deadline passed unanswered: a late success is still accepted. */
  readonly unansweredEffectId?: string;
  /** Sends made in this flow, the first included. */
  readonly sendCount: number;
  readonly resendAvailableAt?: number;
  readonly expiresAt?: number;
  readonly error?: FlowError;
  /** The provider that delivered the code (its `name`, or the `sentBy` a composition reports): what the proof names. */
  readonly sentBy?: string;
  /** When the flow became verified (engine clock). */
  readonly verifiedAt?: number;
}

/** Events every machine understands. Every event carries `now` (ms since epoch) from the engine's clock. */
type TickEvent = { type: 'tick'; now: number };
type EffectSucceededEvent = {
  type: 'effect-succeeded';
  now: number;
  effectId: string;
  result: Readonly<Record<string, unknown>>;
};
/**
 * `provablyUnsent: true` when the provider's error proves nothing was sent (`isProvablyUnsent` of
 * `@verikit/provider`: the request never left, or the provider answered that the call failed). Otherwise a
 * failed send may still have delivered its code.
 */
type EffectFailedEvent = {
  type: 'effect-failed';
  now: number;
  effectId: string;
  error: FlowError;
  provablyUnsent?: boolean;
};
type CancelEvent = { type: 'cancel'; now: number };
export type BaseEvent = TickEvent | EffectSucceededEvent | EffectFailedEvent | CancelEvent;

/** The error a flow shows when an effect's deadline passed without an answer. */
const outcomeUnknownError: FlowError = Object.freeze({
  code: 'outcome_unknown',
  message: 'the provider did not answer in time; the outcome is unknown (a code may still arrive)',
});

/** The context changes that start a send: a new effect id, its deadline, the next cooldown. */
export function beginSend(
  context: FlowContextBase,
  kind: EffectKind,
  now: number,
  policies: FlowPolicies,
): Pick<FlowContextBase, 'effectSeq' | 'effect' | 'unansweredEffectId' | 'sendCount' | 'resendAvailableAt' | 'error'> {
  const sendCount = context.sendCount + 1;
  const cooldown = policies.resendCooldownMs * policies.resendCooldownGrowth ** (sendCount - 1);
  return {
    ...beginEffect(context, kind, now, policies),
    sendCount,
    resendAvailableAt: now + cooldown,
    error: undefined,
  };
}

/** The context changes that start any effect. */
export function beginEffect(
  context: Pick<FlowContextBase, 'flowId' | 'effectSeq'>,
  kind: EffectKind,
  now: number,
  policies: FlowPolicies,
): Pick<FlowContextBase, 'effectSeq' | 'effect' | 'unansweredEffectId'> {
  const effectSeq = context.effectSeq + 1;
  return {
    effectSeq,
    unansweredEffectId: undefined,
    effect: { id: `${context.flowId}:effect:${effectSeq}`, kind, deadline: now + policies.effectTimeoutMs },
  };
}

/** Guards shared by the machines. They read time only from the event. */
export const sharedGuards = {
  isAwaitedEffect: ({ context, event }: { context: FlowContextBase; event: BaseEvent | { type: string } }) =>
    'effectId' in event && context.effect !== undefined && event.effectId === context.effect.id,
  isUnansweredEffect: ({ context, event }: { context: FlowContextBase; event: BaseEvent | { type: string } }) =>
    'effectId' in event && context.unansweredEffectId !== undefined && event.effectId === context.unansweredEffectId,
  effectOverdue: ({ context, event }: { context: FlowContextBase; event: { now: number } }) =>
    context.effect !== undefined && event.now >= context.effect.deadline,
  codeExpired: ({ context, event }: { context: FlowContextBase; event: { now: number } }) =>
    context.expiresAt !== undefined && event.now >= context.expiresAt,
};

/** True when a resend may happen now under the policies; the reason when not. */
export function resendBlockedReason(context: FlowContextBase, now: number, policies: FlowPolicies): string | undefined {
  if (context.sendCount >= policies.maxSendsPerFlow)
    return `the limit of ${policies.maxSendsPerFlow} sends for this flow is reached`;
  if (context.resendAvailableAt !== undefined && now < context.resendAvailableAt) {
    return `resend is available in ${Math.ceil((context.resendAvailableAt - now) / 1000)} s`;
  }
  return undefined;
}

/** True when a time-driven change (expiry, an overdue effect) is due; the engine then applies a `tick`. */
export function isTickDue(context: FlowContextBase, now: number): boolean {
  return (
    (context.expiresAt !== undefined && now >= context.expiresAt) ||
    (context.effect !== undefined && now >= context.effect.deadline)
  );
}

/** The context changes when the awaited effect's deadline passes: it becomes unanswered. */
export function markEffectUnanswered(
  context: FlowContextBase,
): Pick<FlowContextBase, 'effect' | 'unansweredEffectId' | 'error'> {
  return { effect: undefined, unansweredEffectId: context.effect?.id, error: outcomeUnknownError };
}

/**
 * True when a failed send provably delivered nothing: the provider's error proves it (the request never
 * left, or the provider answered that it failed: decision 0920). Such a send starts no cooldown: the user may
 * retry at once, and the send still counts against `maxSendsPerFlow` and the hourly limit. Any other failure
 * (a timeout, a reset after the request left, a gateway's 502/504) may have sent the code: the cooldown holds.
 */
function sendNeverLeft(event: { type: string }): boolean {
  return event.type === 'effect-failed' && (event as EffectFailedEvent).provablyUnsent === true;
}

/**
 * The error a failed send shows: its own when nothing was sent; when the provider is unavailable and the send
 * may have gone out (a timeout, a reset), `outcome_unknown`, so the view says the code may still arrive.
 */
function sendError(event: EffectFailedEvent): FlowError {
  if (event.provablyUnsent === true || event.error.code !== 'provider_unavailable') return event.error;
  return {
    code: 'outcome_unknown',
    message: `${event.error.message} (the outcome is unknown: a code may still arrive)`,
  };
}

/**
 * The context changes when a send fails: its error shown (`outcome_unknown` when it may have been sent), and
 * its cooldown dropped when it provably never left.
 */
export function sendFailed(
  context: FlowContextBase,
  event: { type: string },
): Pick<FlowContextBase, 'effect' | 'unansweredEffectId' | 'error' | 'resendAvailableAt'> {
  const error = event.type === 'effect-failed' ? sendError(event as EffectFailedEvent) : context.error;
  return { ...effectSettled, error, ...(sendNeverLeft(event) ? { resendAvailableAt: undefined } : {}) };
}

/** The provider that delivered a code, from a send's success (the engine adds `sentBy`); else what the context held. */
export function sentByOf(context: FlowContextBase, event: { type: string }): string | undefined {
  const result = event.type === 'effect-succeeded' ? (event as EffectSucceededEvent).result : undefined;
  return typeof result?.sentBy === 'string' ? result.sentBy : context.sentBy;
}

/** The context changes that accompany every move to `verified`. */
export function verifiedAt(event: { now: number }): Pick<FlowContextBase, 'verifiedAt'> {
  return { verifiedAt: event.now };
}

/**
 * The limits a machine's view reports (`maxAttempts`, `sendsLeft`), kept in the machine's root
 * `meta` so that a view can be built from a snapshot alone.
 */
export interface FlowLimits {
  readonly maxAttempts?: number;
  readonly maxSendsPerFlow: number;
}

/** The context changes when an effect's result arrives. */
export const effectSettled: Pick<FlowContextBase, 'effect' | 'unansweredEffectId'> = Object.freeze({
  effect: undefined,
  unansweredEffectId: undefined,
});

/**
 * The context a machine returns when built without input: the inert actor behind the pure
 * transitions (`pure-transition.ts`, and xstate's own `transition()`) runs the context factory
 * without input. Throwing there would make that actor unbuildable.
 */
export const placeholderContext = Object.freeze({ flowId: '', effectSeq: 0, sendCount: 0 });
