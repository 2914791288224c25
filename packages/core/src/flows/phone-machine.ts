import { and, assign, setup } from 'xstate';
import type { PhoneChannel } from '@verikit/provider';
import {
  inboundMatches,
  inboundMethodOf,
  type InboundMessageEvent,
  type InboundStep,
  type InboundMethod,
} from './inbound-message.js';
import type { FlowPolicies } from './policies.js';
import type { BaseEvent, EffectRequest, FlowContextBase, FlowError, FlowLimits } from './flow-context.js';
import {
  placeholderContext,
  beginEffect,
  sendNeverLeft,
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

/** The phone flow's context. The submitted code is never stored. */
interface PhoneContext extends FlowContextBase {
  readonly phoneNumber: string;
  /** The channel of the newest send; absent while a plan's inbound step has sent nothing yet. */
  readonly channel?: PhoneChannel;
  /** The plan: every channel this flow may send on, in order (absent on flows started before plans: `[channel]`). */
  readonly channels?: readonly PhoneChannel[];
  /** The channels of the plan not sent on yet, in order: an automatic fallback takes the first. */
  readonly channelsLeft?: readonly PhoneChannel[];
  /** The language of the messages (BCP 47), as given at start. */
  readonly locale?: string;
  readonly from?: string;
  /** The newest send's; kept through a resend, which names it as `resendOf`, until the new one replaces it. */
  readonly requestId?: string;
  /** The newest send's message id, when the provider gave one besides the requestId (its receipts may name it). */
  readonly messageId?: string;
  readonly attemptsLeft: number;
  /** The plan's escalation: how long after a send the next channel left is sent, without a correct code by then. */
  readonly escalateAfterMs?: number;
  /** When the plan sends on the next channel left by itself (an escalation), unless a correct code comes first. */
  readonly escalateAt?: number;
  /** When the next channel left is sent because the newest send's delivery failed: due at once, no cooldown. */
  readonly fallbackAt?: number;
  /** The id of the send the flow's timer committed: the instance that runs it claims it first (decision 1561). */
  readonly timerEffectId?: string;
  /** The plan's inbound step, while a message may still verify the flow (decision 1695). */
  readonly inbound?: InboundStep;
  /** How an inbound message verified the flow, when one did: the proof's method. */
  readonly verifiedBy?: InboundMethod;
}

interface PhoneInput {
  readonly flowId: string;
  readonly now: number;
  readonly phoneNumber: string;
  /** The plan, in order, at least one channel: the first send goes on the first. */
  readonly channels: readonly PhoneChannel[];
  readonly locale?: string;
  readonly from?: string;
  /** After how long without a correct code the next channel of the plan is sent by itself; absent: never. */
  readonly escalateAfterMs?: number;
  /** The plan's inbound step: the flow starts awaiting a message and sends nothing (the definition's `initialState`). */
  readonly inbound?: InboundStep;
}

/**
 * The phone machine's events. `resend` may name a channel of the plan to switch to. `delivery-failed`
 * says a sent code did not reach the phone (a provider's delivery receipt, raised by the engine; `requestId` is the
 * id the receipt names, the send's requestId or messageId): the flow falls back to the next channel left, when one
 * is and the flow may still send. An `effect-failed`
 * with `fallback: false` (the engine's send limit refused the fallback's send) does not fall back.
 */
type PhoneEvent =
  | Exclude<BaseEvent, { type: 'effect-failed' }>
  | (Extract<BaseEvent, { type: 'effect-failed' }> & { fallback?: false })
  | { type: 'submit-code'; now: number; code: string }
  | { type: 'resend'; now: number; channel?: PhoneChannel }
  | { type: 'delivery-failed'; now: number; requestId?: string; fallback?: false }
  | { type: 'timer'; now: number; fallback?: false }
  | InboundMessageEvent;

/** The error a flow shows when a code was not delivered and no channel is left to fall back to. */
const deliveryFailedError: FlowError = Object.freeze({
  code: 'delivery_failed',
  message: 'the code could not be delivered',
});

/** The plan of a context (flows stored before plans have only `channel`). */
function planOf(context: PhoneContext): readonly PhoneChannel[] {
  return context.channels ?? [context.channel!];
}

/**
 * The context changes of a send on `channel` at `now`: it becomes the current one and leaves the channels left; the
 * plan's escalation, if it has one, is due `escalateAfterMs` later while a channel is left.
 */
function switchTo(
  context: PhoneContext,
  channel: PhoneChannel,
  now: number,
): Pick<PhoneContext, 'channel' | 'channelsLeft' | 'escalateAt' | 'fallbackAt'> {
  const channelsLeft = (context.channelsLeft ?? []).filter((left) => left !== channel);
  const escalates = context.escalateAfterMs !== undefined && channelsLeft.length > 0;
  return {
    channel,
    channelsLeft,
    escalateAt: escalates ? now + context.escalateAfterMs! : undefined,
    fallbackAt: undefined,
  };
}

/** The send a phone flow in `sending` makes: what its entry asks the engine to run. */
export function phoneSendRequest(context: PhoneContext): EffectRequest {
  return {
    // A flow that starts on an inbound step is made by the machine's initial send and then resolved in
    // `awaiting-message`, its actions dropped (the definition's `initialState`): no effect exists then.
    id: context.effect?.id ?? '',
    kind: 'phone.send',
    input: {
      phoneNumber: context.phoneNumber,
      channel: context.channel ?? '',
      ...(context.from ? { from: context.from } : {}),
      ...(context.locale ? { locale: context.locale } : {}),
      ...(context.requestId ? { resendOf: context.requestId } : {}),
    },
  };
}

/** A new flow's escalation (due at `escalates`), sender and language, each only when the input gives it. */
function optionalFields(input: PhoneInput, escalates: boolean): Partial<PhoneContext> {
  const fields: { -readonly [Key in keyof PhoneContext]?: PhoneContext[Key] } = {};
  if (input.escalateAfterMs !== undefined) {
    fields.escalateAfterMs = input.escalateAfterMs;
    if (escalates) fields.escalateAt = input.now + input.escalateAfterMs;
  }
  if (input.from !== undefined) fields.from = input.from;
  if (input.locale !== undefined) fields.locale = input.locale;
  return fields;
}

/** The states from which the plan sends on by itself: a code is out (or its send failed) and none was accepted. */
const waitingStates: ReadonlySet<string> = new Set(['awaiting-message', 'awaiting-code', 'send-failed']);

/** The states in which a flow's inbound route is written: where a plan's inbound step starts. */
export const inboundStates: ReadonlySet<string> = new Set(['awaiting-message']);

/**
 * When the plan sends on the next channel left by itself, from the phone flow's state and context; undefined when it
 * will not. A fallback after a failed delivery is due at once; an escalation when it is due and the cooldown of the
 * send before it has passed, so a send whose outcome is unknown is never followed by another before its cooldown, and
 * never once a receipt said the newest code was delivered.
 */
export function phoneNextSendAt(
  state: string,
  context: PhoneContext,
  policies: Pick<FlowPolicies, 'maxSendsPerFlow'>,
): number | undefined {
  if (!waitingStates.has(state) || (context.channelsLeft?.length ?? 0) === 0) return undefined;
  if (context.sendCount >= policies.maxSendsPerFlow) return undefined;
  if (context.fallbackAt !== undefined) return context.fallbackAt;
  // The provider said the newest code reached the handset: another channel would cost a send and, where each channel
  // has its own code, replace the one the user is reading (decision 1602). The user may still ask for another.
  if (context.escalateAt === undefined || context.deliveredAt !== undefined) return undefined;
  return Math.max(context.escalateAt, context.resendAvailableAt ?? context.escalateAt);
}

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

/** The flow's timer: the plan's next send when it is due; when the send limit refused it, the plan stops. */
const onTimer = [
  { guard: 'nextSendDue', target: 'sending', actions: 'fallBack' },
  { guard: 'nextSendRefused', actions: 'planStopped' },
] as const;

/** A message carrying the reference, from the number, in a state that waits: the flow is verified. */
const onInboundMessage = { guard: 'inboundMatches', target: 'verified', actions: 'verifiedByMessage' } as const;

/**
 * Phone verification where the provider generates and checks the code:
 * sending → awaiting-code → checking → verified, with attempts, lock-out, expiry and resend.
 */
export function createPhoneMachine(policies: FlowPolicies) {
  return setup({
    types: {} as { context: PhoneContext; events: PhoneEvent; input: PhoneInput },
    actions: {
      ...baseActions<PhoneContext, PhoneEvent>(),
      clearOnCancel: assign({ ...effectSettled, error: undefined, inbound: undefined }),
      codeSent: assign(({ event, context }) => ({
        ...effectSettled,
        requestId: event.type === 'effect-succeeded' ? String(event.result.requestId) : context.requestId,
        messageId:
          event.type === 'effect-succeeded' && typeof event.result.messageId === 'string'
            ? event.result.messageId
            : undefined,
        sentBy: sentByOf(context, event),
        expiresAt: event.now + policies.codeTtlMs,
        attemptsLeft: policies.maxAttempts,
        error: undefined,
      })),
      beginResend: assign(({ context, event }) => ({
        ...beginSend(context, 'phone.send', event.now, policies),
        ...switchTo(
          context,
          (event.type === 'resend' ? event.channel : undefined) ?? context.channel ?? context.channelsLeft![0]!,
          event.now,
        ),
        expiresAt: undefined,
      })),
      // An automatic fallback or escalation: the next channel left, a send counted like any other.
      fallBack: assign(({ context, event }) => {
        const send = beginSend(context, 'phone.send', event.now, policies);
        return {
          ...send,
          ...switchTo(context, context.channelsLeft![0]!, event.now),
          expiresAt: undefined,
          timerEffectId: event.type === 'timer' ? send.effect!.id : undefined,
        };
      }),
      deliveryFailed: assign({ error: deliveryFailedError }),
      // The reference expired unanswered and no code was sent: the flow expires, the reference forgotten.
      referenceExpired: assign({ inbound: undefined, escalateAt: undefined }),
      // The timer sends the fallback: a fallback is due now, whatever the cooldown (nothing reached the phone).
      fallbackDue: assign(({ event }) => ({ error: deliveryFailedError, fallbackAt: event.now })),
      // The send limit refused what the timer would have sent: the plan sends nothing more by itself.
      planStopped: assign({ escalateAt: undefined, fallbackAt: undefined }),
      // Only a refused check uses an attempt, when its answer arrives: while checking, the view shows the
      // attempts as before the check, so `attemptsLeft` never goes up again (docs/decisions/0051-attempts-never-given-back.md).
      codeAccepted: assign(({ event }) => ({
        ...effectSettled,
        error: undefined,
        inbound: undefined,
        ...verifiedAt(event),
      })),
      // The reference is forgotten with the flow verified: no later message can match it.
      verifiedByMessage: assign(({ event }) => ({
        ...effectSettled,
        error: undefined,
        inbound: undefined,
        escalateAt: undefined,
        fallbackAt: undefined,
        verifiedBy: inboundMethodOf((event as InboundMessageEvent).channel),
        ...verifiedAt(event),
      })),
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
      // A resend may switch only to a channel of the plan.
      canResend: ({ context, event }) =>
        resendBlockedReason(context, event.now, policies) === undefined &&
        (context.channel !== undefined || (context.channelsLeft?.length ?? 0) > 0) &&
        (event.type !== 'resend' || event.channel === undefined || planOf(context).includes(event.channel)),
      inboundMatches: ({ context, event }) => inboundMatches(context, event),
      // A fallback needs a channel left and a send left; the engine says `fallback: false` when its limit refused.
      canFallBack: ({ context, event }) =>
        (context.channelsLeft?.length ?? 0) > 0 &&
        context.sendCount < policies.maxSendsPerFlow &&
        !('fallback' in event && event.fallback === false),
      sendProvablyUnsent: ({ context, event }) => sendNeverLeft(context, event),
      // The timer's send is due (its state is checked by where the transition is).
      nextSendDue: ({ context, event }) => {
        const at = phoneNextSendAt('awaiting-code', context, policies);
        return at !== undefined && event.now >= at && !('fallback' in event && event.fallback === false);
      },
      nextSendRefused: ({ event }) => 'fallback' in event && event.fallback === false,
      // A receipt about an older send (an id that is not the newest send's) changes nothing.
      isNewestSend: ({ context, event }) =>
        event.type === 'delivery-failed' &&
        (event.requestId === undefined ||
          event.requestId === context.requestId ||
          (context.messageId !== undefined && event.requestId === context.messageId)),
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
      // Built with Object.assign, not spreads: on node 20's V8 each spread of a fresh object given new keys costs
      // microseconds (issue 38). The fields in the same order as ever.
      if (input.inbound !== undefined) {
        // An inbound step first: nothing is sent; the plan's channels are all left, the first after the wait.
        const waiting = {
          flowId: input.flowId,
          effectSeq: 0,
          sendCount: 0,
          phoneNumber: input.phoneNumber,
          channels: input.channels,
          channelsLeft: input.channels,
          inbound: input.inbound,
          expiresAt: input.inbound.until,
        };
        return Object.assign(waiting, optionalFields(input, input.channels.length > 0), {
          attemptsLeft: policies.maxAttempts,
        });
      }
      const sending = Object.assign(firstSend(input, 'phone.send', policies), {
        phoneNumber: input.phoneNumber,
        channel: input.channels[0]!,
        channels: input.channels,
        channelsLeft: input.channels.slice(1),
      });
      return Object.assign(sending, optionalFields(input, input.channels.length > 1), {
        attemptsLeft: policies.maxAttempts,
      });
    },
    initial: 'sending',
    states: {
      // A plan's inbound step: the flow waits for the user's message and has sent nothing. The plan's first send
      // comes when the user asks (`resend`) or its escalation is due (`timer`); expiry ends the reference's life.
      'awaiting-message': {
        on: {
          'inbound-message': onInboundMessage,
          tick: { guard: 'codeExpired', target: 'expired', actions: 'referenceExpired' },
          timer: onTimer,
          resend: onResend,
          cancel: onCancel,
        },
      },
      sending: {
        entry: { type: 'runEffect', params: ({ context }) => phoneSendRequest(context) },
        on: {
          'effect-succeeded': { guard: 'isAwaitedEffect', target: 'awaiting-code', actions: 'codeSent' },
          cancel: onCancel,
          'effect-failed': [
            // Nothing left on this channel: the next channel of the plan is tried at once.
            {
              guard: and(['isAwaitedEffect', 'sendProvablyUnsent', 'canFallBack']),
              target: 'sending',
              reenter: true,
              actions: 'fallBack',
            },
            onSendFailed('send-failed'),
          ],
          tick: onEffectOverdue('send-failed'),
          'inbound-message': onInboundMessage,
        },
      },
      'send-failed': {
        on: {
          'effect-succeeded': { guard: 'isUnansweredEffect', target: 'awaiting-code', actions: 'codeSent' },
          cancel: onCancel,
          resend: onResend,
          timer: onTimer,
          'inbound-message': onInboundMessage,
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
          cancel: onCancel,
          // The fallback is sent by the flow's timer, which any instance carries out (decision 1561).
          'delivery-failed': [
            { guard: and(['isNewestSend', 'canFallBack']), actions: 'fallbackDue' },
            { guard: 'isNewestSend', actions: 'deliveryFailed' },
          ],
          timer: onTimer,
          'inbound-message': onInboundMessage,
          'submit-code': {
            target: 'checking',
            actions: assign(({ context, event }) => ({
              ...beginEffect(context, 'phone.check', event.now, policies),
              error: undefined,
            })),
          },
          resend: onResend,
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
          cancel: onCancel,
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
          tick: onEffectOverdue('awaiting-code'),
          'inbound-message': onInboundMessage,
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
