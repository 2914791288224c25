/**
 * What every flow's machine holds and understands: its kind, its context's common fields, the events
 * every machine takes, the effects it may ask for and the errors it shows.
 */
/** The kinds of flow verikit runs. */
export type FlowKind = 'ussd' | 'phone' | 'identity' | 'dial-in';

/** The provider calls a flow can ask the engine to make. */
export type EffectKind =
  | 'ussd.initiate'
  | 'phone.send'
  | 'phone.check'
  | 'identity.send-otp'
  | 'identity.match'
  | 'identity.consent-request'
  | 'identity.consent-status'
  | 'identity.face';

/** An error shown on a flow: safe to render, never carries a secret. */
export interface FlowError {
  /** Stable and machine-readable, e.g. `send_failed`: what a UI branches on. */
  readonly code: string;
  /** Developer English; never holds a secret, a code or a full identity number. */
  readonly message: string;
}

/** What a provider's delivery receipt said of a flow's last message (docs/flows.md, "Delivery receipts"). */
export interface DeliveryStatus {
  /** `delivered`: the handset has it; `undelivered`: the provider gave up on it. */
  readonly status: 'delivered' | 'undelivered';
  /** The provider's reason for an undelivered message: an error code (`twilio:30003`) or a text, digit runs masked. */
  readonly reason?: string;
  /** When the provider says the status changed (or when the receipt arrived, when it does not say). */
  readonly at: number;
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
  /** The last delivery receipt of the flow's current message; cleared by every new send. */
  readonly delivery?: DeliveryStatus;
  /**
   * When a receipt naming the newest send (its requestId or messageId) said `delivered`: the code is on the handset, so
   * a plan does not escalate by time over it (decision 1602). Cleared by every new send.
   */
  readonly deliveredAt?: number;
  /** When the flow became verified (engine clock). */
  readonly verifiedAt?: number;
}

/** Events every machine understands. Every event carries `now` (ms since epoch) from the engine's clock. */
type TickEvent = { type: 'tick'; now: number };
export type EffectSucceededEvent = {
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
export type EffectFailedEvent = {
  type: 'effect-failed';
  now: number;
  effectId: string;
  error: FlowError;
  provablyUnsent?: boolean;
};
type CancelEvent = { type: 'cancel'; now: number };
export type BaseEvent = TickEvent | EffectSucceededEvent | EffectFailedEvent | CancelEvent;

/**
 * The limits a machine's view reports (`maxAttempts`, `sendsLeft`), kept in the machine's root
 * `meta` so that a view can be built from a snapshot alone.
 */
export interface FlowLimits {
  readonly maxAttempts?: number;
  readonly maxSendsPerFlow: number;
}
