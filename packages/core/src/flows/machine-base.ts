import { assign, type EventObject } from 'xstate';
import type { FlowPolicies } from './policies.js';
import type {
  BaseEvent,
  EffectFailedEvent,
  EffectKind,
  EffectRequest,
  EffectSucceededEvent,
  FlowContextBase,
  FlowError,
} from './flow-context.js';

// The setup every machine starts from (the machines spread it into their own `setup`): the `runEffect` action the
// engine reads effects from, the guards on effects and expiry, the context changes of sends, effects and
// verification that every flow makes the same way, and the transitions every flow takes the same way.

/**
 * The actions every machine starts from, typed for its context and events: `...baseActions<Context, Event>()`.
 * `runEffect` does nothing: the engine reads it from the transition's actions and runs the effect.
 */
export function baseActions<Context extends FlowContextBase, Event extends EventObject>() {
  return {
    runEffect: (_: unknown, _params: EffectRequest) => {},
    /** The awaited send failed: see {@link sendFailed}. */
    showSendFailure: assign<Context, Event, undefined, Event, never>(
      ({ context, event }) => sendFailed(context, event) as Partial<Context>,
    ),
    /** The awaited effect's deadline passed: see {@link markEffectUnanswered}. */
    markUnanswered: assign<Context, Event, undefined, Event, never>(
      ({ context }) => markEffectUnanswered(context) as Partial<Context>,
    ),
  };
}

/** The transition when the awaited send fails: to `target`, with its error shown. */
export function onSendFailed<const Target extends string>(target: Target) {
  return { guard: 'isAwaitedEffect', target, actions: 'showSendFailure' } as const;
}

/** The transition when the awaited effect's deadline passes (a `tick`): to `target`, the effect unanswered. */
export function onEffectOverdue<const Target extends string>(target: Target) {
  return { guard: 'effectOverdue', target, actions: 'markUnanswered' } as const;
}

/** A resend the machine's `canResend` allows: back to `sending`, with its `beginResend`. */
export const onResend = Object.freeze({ guard: 'canResend', target: 'sending', actions: 'beginResend' } as const);

/** A cancel: to `cancelled`, with the machine's `clearOnCancel`. */
export const onCancel = Object.freeze({ target: 'cancelled', actions: 'clearOnCancel' } as const);

/** The context of a flow about to make its first send (`kind`), from its id and start time. */
export function firstSend(
  input: { flowId: string; now: number },
  kind: EffectKind,
  policies: FlowPolicies,
): Pick<FlowContextBase, 'flowId'> & ReturnType<typeof beginSend> {
  const base = { flowId: input.flowId, effectSeq: 0, sendCount: 0 };
  // Object.assign, not spreads: on node 20's V8 a fresh object spread and then given new keys costs microseconds.
  return Object.assign(base, beginSend(base, kind, input.now, policies));
}

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
): Pick<
  FlowContextBase,
  | 'effectSeq'
  | 'effect'
  | 'unansweredEffectId'
  | 'sendCount'
  | 'resendAvailableAt'
  | 'error'
  | 'delivery'
  | 'deliveredAt'
> {
  const sendCount = context.sendCount + 1;
  const cooldown = policies.resendCooldownMs * policies.resendCooldownGrowth ** (sendCount - 1);
  return Object.assign(beginEffect(context, kind, now, policies), {
    sendCount,
    resendAvailableAt: now + cooldown,
    error: undefined,
    // A new message: the receipt of the last one no longer describes it.
    delivery: undefined,
    deliveredAt: undefined,
  });
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

/** The guards every machine starts from. They read time only from the event. */
export const baseGuards = {
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
function markEffectUnanswered(
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
export function sendNeverLeft(_context: FlowContextBase, event: { type: string }): boolean {
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
function sendFailed(
  context: FlowContextBase,
  event: { type: string },
): Pick<FlowContextBase, 'effect' | 'unansweredEffectId' | 'error' | 'resendAvailableAt'> {
  const error = event.type === 'effect-failed' ? sendError(event as EffectFailedEvent) : context.error;
  return { ...effectSettled, error, ...(sendNeverLeft(context, event) ? { resendAvailableAt: undefined } : {}) };
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
