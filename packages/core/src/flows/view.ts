import type { AnyMachineSnapshot } from 'xstate';
import { flowDefinitions } from './flow-definitions.js';
import type { FlowStatus } from './machines.js';
import type { DeliveryStatus, FlowContextBase, FlowError, FlowKind, FlowLimits } from './flow-context.js';
import type { IdentityStep, IdentityType, PhoneChannel } from '@verikit/provider';
import { maskPhoneNumber, type SecretBox } from '../secrets/secrets.js';
import { inboundViewOf, type InboundView } from './inbound-step.js';
import type { InboundStep } from './inbound-message.js';
import { messageIdOf } from './message-ids.js';

/** An error as a view shows it: safe to render, with the stable id a product translates. */
export interface FlowViewError extends FlowError {
  /** `verikit.error.<code>`, or `verikit.error.unknown`: the key to translate (docs/ui.md); `message` is developer English. */
  readonly messageId: string;
}

/**
 * What a UI renders: a plain, serializable, immutable object. It never holds an apiKey, a full
 * BVN/NIN, a hash, a submitted code, or what a proof carries. For USSD it holds the OTP and USSD
 * code the user must see, while the user may dial. Times are milliseconds since the epoch on the
 * engine's clock.
 */
export interface FlowView {
  /** The flow id: what `get`, `send` and the HTTP routes take. */
  readonly id: string;
  /** Which flow this is: USSD dial, phone code or BVN/NIN. */
  readonly kind: FlowKind;
  /** Where the flow is: what to render (docs/ui.md). */
  readonly status: FlowStatus;
  /** True when nothing can change the flow any more. */
  readonly done: boolean;
  /** The user events accepted now (`submit-code`, `resend`, `restart`, `cancel`). */
  readonly allowed: readonly string[];
  /** The phone number, masked: `+234*******678`. */
  readonly phoneNumber?: string;
  /** Phone flows: the channel of the newest send. */
  readonly channel?: PhoneChannel;
  /** Phone flows: the plan, every channel a `resend` may name, in order. */
  readonly channels?: readonly PhoneChannel[];
  /**
   * Phone flows: the channels of the plan not sent on yet, in order; a failed delivery falls back to the
   * first. When a resend on any channel is possible: `resendAvailableAt`.
   */
  readonly channelsLeft?: readonly PhoneChannel[];
  /**
   * Phone flows: the send the plan makes by itself next, unless a correct code comes first: on which channel and
   * when (an escalation, or the fallback after a failed delivery: docs/plans.md). Absent when the plan sends nothing
   * more by itself. A time already past means the send is due and about to be made.
   */
  readonly next?: {
    /** The channel the plan sends on next. */
    readonly channel: PhoneChannel;
    /** When (engine clock, ms since the epoch); in the past when the send is due now. */
    readonly at: number;
  };
  /**
   * Phone flows whose plan starts with an inbound step, while a message may verify them: the reference the user
   * sends from the number being verified, and where (per channel, with a `wa.me` or `sms:` link). Shown to the user
   * who started the flow only; never logged, never stored (docs/flows.md, "Inbound steps").
   */
  readonly inbound?: InboundView;
  /** Identity flows: which identity number the code was sent for. */
  readonly idType?: IdentityType;
  /** The BVN/NIN, masked: `*******5678`. */
  readonly number?: string;
  /** Identity flows with a ladder: the steps, in order (docs/flows.md, "The identity ladder"). */
  readonly steps?: readonly IdentityStep[];
  /** Identity flows with a ladder, while not done: the step being climbed. */
  readonly step?: IdentityStep;
  /** Identity flows, while consent is awaited: the vendor's page where the user gives it (when it has one). */
  readonly consentUrl?: string;
  /** Wrong codes still allowed. While a code is being checked, the attempts as before the check: it never goes up. */
  readonly attemptsLeft?: number;
  /** Wrong codes allowed in all (phone, identity). */
  readonly maxAttempts?: number;
  /** Sends (resends, restarts) this flow may still make: `maxSendsPerFlow` minus the sends so far. */
  readonly sendsLeft?: number;
  /** When a `resend` or `restart` becomes allowed; absent while the status allows neither (awaiting a dial, checking). */
  readonly resendAvailableAt?: number;
  /** When the code or USSD session stops being valid. */
  readonly expiresAt?: number;
  /** USSD and dial-in: the code to dial (dial-in: with the flow's one-time reference in it). */
  readonly ussdCode?: string;
  /** USSD only, while the user may dial: the OTP to enter. */
  readonly otp?: string;
  /**
   * What became of the flow's last message, when the provider sent a delivery receipt for it: `delivered`
   * or `undelivered` (with the provider's `reason`), and when (`at`). Absent until a receipt arrives.
   */
  readonly delivery?: DeliveryStatus;
  /** Why the flow failed or a send did not go out; absent otherwise. */
  readonly error?: FlowViewError;
  /** The flow's change counter: strictly increasing, so the higher version is the newer state. */
  readonly version: number;
  /** When the flow started. */
  readonly createdAt: number;
  /** When the flow last changed. */
  readonly updatedAt: number;
  /** The engine's clock when it computed this view: what countdowns measure `resendAvailableAt` and `expiresAt` against. */
  readonly serverTime: number;
}

/** Probe events for `allowed`: guards read only `now` and the event type from them. */
function probe(type: string, now: number): Record<string, unknown> {
  return { type, now, code: '', codeHash: '', otpHash: '' };
}

/** The user events that send again: the ones a cooldown holds back. */
const sendEvents = new Set(['resend', 'restart']);

/** True when the state would take a resend or restart once the cooldown has passed. */
function resendPossible(snapshot: AnyMachineSnapshot, kind: FlowKind, at: number): boolean {
  return flowDefinitions[kind].userEvents.some(
    (type) => sendEvents.has(type) && snapshot.can(probe(type, at) as never),
  );
}

/**
 * The view of a snapshot as of `now`: what every engine call returns and every subscriber receives. `secrets` (the
 * engine's) makes an inbound step's reference from what the flow stores; without it the view has no `inbound`.
 */
export function toView(
  snapshot: AnyMachineSnapshot,
  meta: { id: string; kind: FlowKind; version: number; createdAt: number; updatedAt: number },
  now: number,
  secrets?: SecretBox,
): FlowView {
  const context = snapshot.context as FlowContextBase & Record<string, unknown>;
  const limits = snapshot.machine.root.meta as FlowLimits | undefined;
  const done = snapshot.status === 'done';
  const allowed = done
    ? []
    : flowDefinitions[meta.kind].userEvents.filter((type) => snapshot.can(probe(type, now) as never));
  const view: Record<string, unknown> = {
    id: meta.id,
    kind: meta.kind,
    status: snapshot.value as FlowStatus,
    done,
    allowed,
  };
  if (typeof context.phoneNumber === 'string') view.phoneNumber = maskPhoneNumber(context.phoneNumber);
  if (context.channel !== undefined || Array.isArray(context.channels)) {
    if (context.channel !== undefined) view.channel = context.channel;
    view.channels = Object.freeze([...((context.channels as PhoneChannel[] | undefined) ?? [context.channel])]);
    view.channelsLeft = Object.freeze([...((context.channelsLeft as PhoneChannel[] | undefined) ?? [])]);
  }
  const inbound = context.inbound as InboundStep | undefined;
  if (inbound !== undefined && secrets !== undefined && !done && now < inbound.until && snapshot.value !== 'expired')
    view.inbound = inboundViewOf(secrets, meta.id, inbound);
  const next = done ? undefined : flowDefinitions[meta.kind].nextSend?.(snapshot);
  if (next !== undefined) view.next = Object.freeze({ ...next });
  if (context.idType !== undefined) view.idType = context.idType;
  if (context.numberMasked !== undefined) view.number = context.numberMasked;
  if (Array.isArray(context.steps)) {
    view.steps = Object.freeze([...(context.steps as IdentityStep[])]);
    const step = (context.steps as IdentityStep[])[(context.stepIndex as number | undefined) ?? 0];
    if (!done && step !== undefined) view.step = step;
  }
  if (typeof context.consentUrl === 'string' && snapshot.value === 'awaiting-consent')
    view.consentUrl = context.consentUrl;
  if (context.attemptsLeft !== undefined) view.attemptsLeft = context.attemptsLeft;
  if (context.attemptsLeft !== undefined && limits?.maxAttempts !== undefined) view.maxAttempts = limits.maxAttempts;
  if (limits !== undefined && !done) view.sendsLeft = Math.max(0, limits.maxSendsPerFlow - context.sendCount);
  const resendAt = context.resendAvailableAt;
  if (resendAt !== undefined && !done && resendPossible(snapshot, meta.kind, Math.max(now, resendAt)))
    view.resendAvailableAt = resendAt;
  if (context.expiresAt !== undefined && !done) view.expiresAt = context.expiresAt;
  if (context.ussdCode !== undefined) view.ussdCode = context.ussdCode;
  if (context.otp !== undefined) view.otp = context.otp;
  if (context.delivery !== undefined) view.delivery = { ...(context.delivery as DeliveryStatus) };
  if (context.error !== undefined)
    view.error = {
      code: context.error.code,
      message: context.error.message,
      messageId: messageIdOf(context.error.code),
    };
  view.version = meta.version;
  view.createdAt = meta.createdAt;
  view.updatedAt = meta.updatedAt;
  view.serverTime = now;
  return Object.freeze(view) as unknown as FlowView;
}

/** A committed change's view, made the first time something asks for it (docs/decisions/1450-a-view-only-when-asked.md). */
export type LazyView = () => FlowView;

/** {@link toView} of `snapshot`, made on the first call and the same object on every call after it. */
export function lazyView(
  snapshot: AnyMachineSnapshot,
  meta: Parameters<typeof toView>[1],
  now: number,
  secrets?: SecretBox,
): LazyView {
  let view: FlowView | undefined;
  return () => (view ??= toView(snapshot, meta, now, secrets));
}

/** The lifecycle events of a flow, for `verikit.on` (docs/flows.md, "Lifecycle events"). */
export type FlowEventType =
  | 'started'
  | 'sent'
  | 'delivered'
  | 'undelivered'
  | 'verified'
  | 'failed'
  | 'locked'
  | 'expired';

/**
 * One lifecycle event: what happened to which flow, never a secret, a code or a number. Fired once, by the
 * instance whose commit caused it, after that commit.
 */
export interface FlowEvent {
  /** Unique per event and the same wherever it is computed: `<flowId>:<version>:<type>`. */
  readonly id: string;
  /** What happened. */
  readonly type: FlowEventType;
  /** The flow it happened to. */
  readonly flowId: string;
  /** Which flow this is. */
  readonly kind: FlowKind;
  /** The flow's status after the change. */
  readonly status: FlowStatus;
  /** The flow's version after the change. */
  readonly version: number;
  /** When the change was committed (engine clock, ms since the epoch). */
  readonly at: number;
  /** `failed`: the error's code (`send_failed`, `dial_failed`, `provider_unavailable`, …). */
  readonly errorCode?: string;
  /** `delivered` and `undelivered`: the receipt, as the view shows it. */
  readonly delivery?: DeliveryStatus;
}

/** A listener of lifecycle events. A throw or a rejection is logged, never the committing caller's error. */
export type FlowEventListener = (event: FlowEvent) => void | Promise<void>;

/** Every lifecycle event type, in the order a flow may tell them. */
export const flowEventTypes = [
  'started',
  'sent',
  'delivered',
  'undelivered',
  'verified',
  'failed',
  'locked',
  'expired',
] as const satisfies readonly FlowEventType[];

/** The statuses that announce a sent message, when entered from a status that does not wait for a code. */
const waitingStatuses = new Set<string>(['awaiting-code', 'awaiting-dial']);
/** A status with its own event when a flow enters it. */
const statusEvents: Partial<Record<string, FlowEventType>> = {
  verified: 'verified',
  failed: 'failed',
  'send-failed': 'failed',
  locked: 'locked',
  expired: 'expired',
};

/** One lifecycle event of the change that made `meta`'s version. */
function flowEvent(
  meta: { id: string; kind: FlowKind; version: number; updatedAt: number },
  status: FlowStatus,
  type: FlowEventType,
  extra: Partial<FlowEvent> = {},
): FlowEvent {
  return {
    id: `${meta.id}:${meta.version}:${type}`,
    type,
    flowId: meta.id,
    kind: meta.kind,
    status,
    version: meta.version,
    at: meta.updatedAt,
    ...extra,
  };
}

/** The lifecycle events one committed change causes, in the order they happened. */
export function lifecycleEventsOf(
  previous: AnyMachineSnapshot | undefined,
  next: AnyMachineSnapshot,
  meta: { id: string; kind: FlowKind; version: number; updatedAt: number },
): FlowEvent[] {
  const before = previous?.value as string | undefined;
  const after = next.value as FlowStatus;
  const context = next.context as FlowContextBase;
  const events: FlowEvent[] = [];
  if (previous === undefined) events.push(flowEvent(meta, after, 'started'));
  // A send went out: the flow now waits for the user, coming from a send (not from a wrong code's check).
  if (waitingStatuses.has(after) && (before === undefined || (!waitingStatuses.has(before) && before !== 'checking')))
    events.push(flowEvent(meta, after, 'sent'));
  const receipt = context.delivery;
  if (receipt !== undefined && receipt !== (previous?.context as FlowContextBase | undefined)?.delivery)
    events.push(flowEvent(meta, after, receipt.status, { delivery: receipt }));
  const entered = before === after ? undefined : statusEvents[after];
  if (entered !== undefined)
    events.push(
      flowEvent(meta, after, entered, entered === 'failed' && context.error ? { errorCode: context.error.code } : {}),
    );
  return events;
}
