import type { AnyMachineSnapshot } from 'xstate';
import { inboundReservationKey, inboundRouteKey, phoneNumberKey } from '../keys/store-keys.js';
import {
  markParsedV1,
  InvalidInputError,
  ProviderProtocolError,
  requireCapabilityV1,
  type InboundChannelV1,
  type InboundMessageEventV1,
  type PhoneChannel,
  type PhoneCheckReasonV1,
  type ProviderCallContextV1,
} from '@verikit/provider';
import { plainUserEvent, type FlowDefinition, type FlowEnvironment } from './flow-definition.js';
import { createPhoneMachine, inboundStates, phoneNextSendAt, phoneSendRequest } from './phone-machine.js';
import type { InboundStep } from './inbound-message.js';
import { inboundRouteKeysOf, newInboundStep, referenceHashesOf } from './inbound-step.js';
import type { FlowLimits } from './flow-context.js';
import { isReviewRequestId } from './review-numbers.js';
import { maskPhoneNumber } from '../secrets/secrets.js';
import { errorCode } from '../logging/error-code.js';

/** The reasons a check may give for a code that is not valid, each mapped onto the flow's state by the machine. */
const checkReasons: ReadonlySet<string> = new Set<PhoneCheckReasonV1>(['expired', 'attempts-exhausted', 'not-pending']);

/**
 * The provider locked the code while the engine still allowed more attempts: its limit is lower than the engine's
 * `maxAttempts` (a sandbox started with another `--max-attempts`). The flow is locked as the provider says, and the
 * developer is told once, at the moment it bites, with both numbers (never the code or the phone number).
 */
async function warnIfAttemptsDiffer(
  flowId: string,
  providerMaxAttempts: unknown,
  env: FlowEnvironment,
  context: ProviderCallContextV1,
  committedContext: () => Promise<Readonly<Record<string, unknown>>>,
): Promise<void> {
  const attemptsLeft = (await committedContext()).attemptsLeft;
  // The engine's count before this check: with one left, this wrong code locks the flow anyway.
  if (typeof attemptsLeft !== 'number' || attemptsLeft <= 1) return;
  const engineMaxAttempts = env.policies.maxAttempts;
  const said = Number.isInteger(providerMaxAttempts) && (providerMaxAttempts as number) > 0;
  context.logger.warn('verikit.flow.attempts-differ', {
    flowId,
    provider: env.provider.name,
    ...(said ? { providerMaxAttempts: providerMaxAttempts as number } : {}),
    engineMaxAttempts,
    wrongCodes: engineMaxAttempts - attemptsLeft + 1,
    hint: `the provider allows ${said ? providerMaxAttempts : 'fewer'} wrong codes, the engine's maxAttempts is ${engineMaxAttempts}: give both the same limit (the sandbox's --max-attempts or VERIKIT_MAX_ATTEMPTS); the flow is locked`,
  });
}

/** What `sentBy` must look like to be kept: a provider name (failover members' names are such). */
const providerNamePattern = /^[a-z][a-z0-9-]{0,31}$/;

/** A step of a phone flow's plan: a channel a code is sent on, or one the user sends the reference on. */
type PlanStep = PhoneChannel | 'sms-inbound' | 'whatsapp-inbound';

/** The inbound channel of a plan step, or undefined for an outbound one. */
function inboundChannelOf(step: PlanStep): InboundChannelV1 | undefined {
  return step === 'sms-inbound' ? 'sms' : step === 'whatsapp-inbound' ? 'whatsapp' : undefined;
}

/**
 * Splits a plan into its inbound step (the channels the user may send on, `inbound-step.ts`) and the channels a code
 * is sent on. The inbound steps must come first: the plan waits for a message, then sends. Throws an
 * `InvalidInputError` otherwise.
 */
function splitPlan(plan: readonly PlanStep[]): {
  inbound: InboundChannelV1[];
  channels: PhoneChannel[];
} {
  const inbound: InboundChannelV1[] = [];
  const channels: PhoneChannel[] = [];
  for (const step of plan) {
    const channel = inboundChannelOf(step);
    if (channel === undefined) channels.push(step as PhoneChannel);
    else if (channels.length > 0)
      throw new InvalidInputError([
        { field: 'channels', message: 'must name its inbound steps (sms-inbound, whatsapp-inbound) first' },
      ]);
    else inbound.push(channel);
  }
  return { inbound, channels };
}

type PhoneStart = {
  kind: 'phone';
  phoneNumber: string;
  channel?: PhoneChannel | undefined;
  channels?: PlanStep[] | undefined;
  locale?: string | undefined;
  from?: string | undefined;
  escalateAfterMs?: number | undefined;
};

/** The plan of a start: `channels`, or the one `channel`, or SMS; its inbound steps apart. */
function planOf(input: PhoneStart): ReturnType<typeof splitPlan> {
  return splitPlan(input.channels ?? [input.channel ?? 'sms']);
}

type PhoneMachineContext = Parameters<typeof phoneSendRequest>[0];

/** The plan's next send by itself, on which channel and when; undefined when it makes none. */
function nextSendOf(snapshot: AnyMachineSnapshot): { channel: PhoneChannel; at: number } | undefined {
  const context = snapshot.context as PhoneMachineContext;
  const at = phoneNextSendAt(snapshot.value as string, context, snapshot.machine.root.meta as FlowLimits);
  return at === undefined ? undefined : { channel: context.channelsLeft![0]!, at };
}

/** The inbound step of a stored context or a machine input, if any. */
function inboundOf(context: Readonly<Record<string, unknown>>): InboundStep | undefined {
  return context.inbound as InboundStep | undefined;
}

/** The send the flow's timer committed, while the flow awaits it. */
function timerSendOf(snapshot: AnyMachineSnapshot): { deadline: number } | undefined {
  const context = snapshot.context as PhoneMachineContext;
  const effect = context.effect;
  return snapshot.value === 'sending' && effect !== undefined && context.timerEffectId === effect.id
    ? effect
    : undefined;
}

/** Phone verification: the provider sends a code and checks the code the user submits. */
export const phoneFlow: FlowDefinition<PhoneStart> = {
  kind: 'phone',
  createMachine: createPhoneMachine,
  userEvents: ['submit-code', 'resend', 'cancel'],
  // The provider makes the code, so the flow never needs `customCode`.
  // Every channel of the plan is checked at start: a resend or a fallback never meets a missing channel.
  check: (input, { provider }) => {
    if (input.channel !== undefined && input.channels !== undefined)
      throw new InvalidInputError([{ field: 'channels', message: 'must not be given with channel' }]);
    const plan = planOf(input);
    for (const channel of plan.channels) requireCapabilityV1(provider, { capability: 'phone', channel });
    for (const channel of plan.inbound) requireCapabilityV1(provider, { capability: 'inbound', channel });
  },
  machineInput: (input, { flowId, now }, { provider, secrets, policies }) => {
    const plan = planOf(input);
    return {
      flowId,
      now,
      phoneNumber: input.phoneNumber,
      channels: plan.channels,
      ...(plan.inbound.length === 0
        ? {}
        : {
            inbound: newInboundStep(
              provider,
              secrets,
              { flowId, now, phoneNumber: input.phoneNumber, codeTtlMs: policies.codeTtlMs },
              plan.inbound,
            ),
          }),
      ...(input.from === undefined ? {} : { from: input.from }),
      ...(input.locale === undefined ? {} : { locale: input.locale }),
      ...(input.escalateAfterMs === undefined ? {} : { escalateAfterMs: input.escalateAfterMs }),
    };
  },
  // A plan that starts on an inbound step waits for the user's message and sends nothing (decision 1695).
  initialState: (machineInput) => (inboundOf(machineInput) === undefined ? undefined : 'awaiting-message'),
  // No two live flows of one number share a reference: a start whose reference is taken draws another.
  reservations: (machineInput) => {
    const hash = inboundOf(machineInput)?.referenceHash;
    return hash === undefined ? [] : [inboundReservationKey(hash)];
  },
  // A flow that waits for a message is routed to by its reference's hash (with its number).
  routes: (previous, next) => {
    const hash = inboundOf(next.context)?.referenceHash;
    return hash !== undefined &&
      inboundStates.has(next.value as string) &&
      inboundOf(previous?.context ?? {})?.referenceHash !== hash
      ? [inboundRouteKey(hash)]
      : [];
  },
  providerEvent: {
    type: 'inbound-message',
    routeKeys: (event, { secrets }) => (event.type === 'inbound-message' ? inboundRouteKeysOf(secrets, event) : []),
    toEvent: (event, now, { secrets }) => {
      const message = event as InboundMessageEventV1;
      return {
        type: 'inbound-message',
        now,
        channel: message.channel,
        phoneNumber: message.from,
        to: message.to,
        referenceHashes: referenceHashesOf(secrets, message),
      };
    },
  },
  // The provider's lookup of the number (Termii's DND search): the plan leaves out the channels it says cannot reach
  // the number, when some channel is left (decision 1690). Only for a plan of several channels: with one, nothing
  // could be chosen instead. A review number is never looked up (nothing is sent to it).
  async consultProvider(machineInput, { provider, reviewNumbers }, { ask, logger }) {
    const phone = provider.phone;
    const channels = machineInput['channels'] as readonly PhoneChannel[];
    const phoneNumber = machineInput['phoneNumber'] as string;
    const reach = phone?.reach;
    if (reach === undefined || channels.length < 2 || reviewNumbers?.requestIdFor(phoneNumber) !== undefined)
      return machineInput;
    let unreachable: readonly unknown[];
    try {
      const result = await ask((context) => reach.call(phone, markParsedV1({ phoneNumber }), context));
      unreachable = Array.isArray(result?.unreachable) ? result.unreachable : [];
    } catch (error) {
      // The lookup is advice: without it the plan is the one asked for.
      logger.warn('verikit.phone.reach-failed', { provider: provider.name, error: errorCode(error) });
      return machineInput;
    }
    const kept = channels.filter((channel) => !unreachable.includes(channel));
    return kept.length === 0 || kept.length === channels.length ? machineInput : { ...machineInput, channels: kept };
  },
  // The plan's next send by itself (an escalation, a fallback after a failed delivery), sent by the flow's timer;
  // while the timer's own send is awaited, its deadline (the flow's timer then finds it made, or makes it).
  wakeAt: (snapshot) => timerSendOf(snapshot)?.deadline ?? nextSendOf(snapshot)?.at,
  nextSend: nextSendOf,
  timerEffect: (snapshot) =>
    timerSendOf(snapshot) === undefined ? undefined : phoneSendRequest(snapshot.context as PhoneMachineContext),
  // The same key as the USSD flow's: one hourly limit per phone number, whichever flow sends.
  sendLimitKey: (context, { secrets }) => phoneNumberKey(secrets, context.phoneNumber),
  toEvent: (event, { now }) => plainUserEvent(event, now),
  effects: {
    'phone.send': {
      send: true,
      async run({ input, context, env }) {
        // A review number's code is fixed: nothing is sent, and the use is logged at warning.
        const review = env.reviewNumbers?.requestIdFor(input.phoneNumber!);
        if (review !== undefined) {
          context.logger.warn('verikit.review_number.used', {
            step: 'send',
            phoneNumber: maskPhoneNumber(input.phoneNumber!),
          });
          return { requestId: review };
        }
        // Parsed at the engine's edge: marked, so the provider does not parse it again (decision 1520).
        const result = await env.provider.phone!.send(
          markParsedV1({
            phoneNumber: input.phoneNumber!,
            channel: input.channel as PhoneChannel,
            ...(input.from ? { from: input.from } : {}),
            ...(input.locale ? { locale: input.locale } : {}),
            // A resend names the send it repeats, so a provider that chose among several sends it by the same one.
            ...(input.resendOf ? { resendOf: input.resendOf } : {}),
          }),
          context,
        );
        if (typeof result?.requestId !== 'string' || result.requestId === '') {
          throw new ProviderProtocolError('the provider returned no requestId', { field: 'requestId' });
        }
        // The code is out: a malformed sentBy is dropped rather than failing a send that happened.
        return {
          requestId: result.requestId,
          ...(typeof result.messageId === 'string' && result.messageId !== '' ? { messageId: result.messageId } : {}),
          ...(typeof result.sentBy === 'string' && providerNamePattern.test(result.sentBy)
            ? { sentBy: result.sentBy }
            : {}),
        };
      },
    },
    'phone.check': {
      send: false,
      async run({ flowId, input, context, env, committedContext }) {
        if (isReviewRequestId(input.requestId!)) {
          // Never the provider: it sent nothing. A number no longer listed fails.
          const valid = env.reviewNumbers?.check(input.requestId!, input.code!) ?? false;
          context.logger.warn('verikit.review_number.used', { step: 'check', valid });
          return { valid };
        }
        const result = await env.provider.phone!.check(
          markParsedV1({ requestId: input.requestId!, code: input.code! }),
          context,
        );
        if (typeof result?.valid !== 'boolean')
          throw new ProviderProtocolError('the provider returned no validity', { field: 'valid' });
        if (result.valid === false && result.reason === 'attempts-exhausted')
          await warnIfAttemptsDiffer(flowId, result.maxAttempts, env, context, committedContext);
        // A reason this engine does not know is a plain wrong code.
        return result.valid || !checkReasons.has(result.reason as string)
          ? { valid: result.valid }
          : { valid: false, reason: result.reason };
      },
    },
  },
};
