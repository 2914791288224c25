import type { DialInCapabilityV1, MessageSendResultV1, WebhooksCapabilityV1 } from '@verikit/provider';
import type { FlowPolicies } from '../flows/policies.js';
import type {
  CallOptions,
  ParsedStartInput,
  SendSmsInput,
  SendWhatsAppInput,
  StartInput,
  UserEvent,
} from '../inputs/inputs.js';
import type { CostReport } from '../guard/cost-ledger.js';
import type { IssueProofOptions, ProofClaim, RedeemProofOptions } from '../proof/proof-inputs.js';
import type { IssuedProof } from '../proof/proofs.js';
import type { Verification } from '../proof/verification.js';
import type { InboundEvent, ReceiveOptions, ReceiveResult } from '../inbound/receive-inbound-event.js';
import type { FlowListener } from './change-bus.js';
import type { MessageOptions } from './message-options.js';
import type { CircuitEventListener, CircuitEventType } from './circuit-events.js';
import type { FlowEventListener, FlowEventType, FlowView } from '../flows/view.js';

/** The verikit engine: starts flows, takes user events, runs provider calls, and sends messages. */
export interface Verikit {
  /**
   * Starts a flow and makes its first provider call; resolves with the view once that call settled.
   * `options.client` names who asks, for the send guard's per-client limit (docs/abuse.md).
   */
  start(input: StartInput, options?: CallOptions): Promise<FlowView>;
  /**
   * Checks a start input as `start` does and returns it parsed, its phone number in E.164 (read with the
   * engine's `defaultCountry`): for a layer that must see the input before starting (the HTTP layer's
   * `authorize`). Throws the same `InvalidInputError`. The result is frozen, and `start` takes it as it is, without
   * reading it again.
   */
  parseStartInput(input: unknown): ParsedStartInput;
  /**
   * Applies a user event (`submit-code`, `resend`, `restart`, `cancel`) and any provider call it
   * starts; a resend or restart passes the send guard, for `options.client` where given.
   */
  send(flowId: string, event: UserEvent, options?: CallOptions): Promise<FlowView>;
  /**
   * The flow secret of a flow: what the HTTP API asks of a browser before it reads, follows, drives or
   * proves the flow (docs/security.md). The flow handler hands it to the browser that started the
   * flow; a server that starts a flow itself hands it on the same way. Derived from the engine's
   * secret and the id: never stored, never logged, never in a view.
   */
  flowSecret(flowId: string): string;
  /** True when `secret` is the flow secret of `flowId`, compared in constant time; whether the flow exists plays no part. */
  isFlowSecret(flowId: string, secret: unknown): boolean;
  /** Reads a flow as of now: a flow read after its expiry is expired whether or not a timer ran. */
  get(flowId: string): Promise<FlowView>;
  /** Same as `send(flowId, { type: 'cancel' })`. */
  cancel(flowId: string): Promise<FlowView>;
  /** Calls `listener` with every committed view of the flow; returns the unsubscribe function. */
  subscribe(flowId: string, listener: FlowListener): () => void;
  /**
   * Resolves once this instance's subscriptions to the flow receive changes from every instance
   * (immediately in one process; after the Redis SUBSCRIBE is confirmed with the Redis bus). Call
   * it after `subscribe(flowId, …)`: without a live subscription it rejects with a `UsageError`.
   */
  subscribed(flowId: string): Promise<void>;
  /**
   * The one entry for inbound events, what a provider tells us (a USSD result, a delivery receipt): applies a verified
   * inbound event to the flow it concerns, once per event id across every instance sharing
   * the store. A redelivery of an applied id is a `duplicate`; one that meets another delivery of
   * the same id is `in-progress`; a failure rejects and gives the id back, so the next delivery
   * applies it afresh (docs/webhooks.md). Verifying the delivery is the caller's job
   * (`@verikit/http`'s webhook route).
   */
  receive(inbound: InboundEvent, options?: ReceiveOptions): Promise<ReceiveResult>;
  /**
   * How the provider's webhooks are read into events: its `webhooks` capability, or `undefined`
   * when the provider sends no webhooks (then no webhook route is needed).
   */
  readonly webhooks: WebhooksCapabilityV1 | undefined;
  /**
   * How the carrier's USSD session requests of dial-in flows are read and answered: the provider's `dialIn`
   * capability, or `undefined` when it takes no dial-in flows (then no dial-in route is needed).
   */
  readonly dialIn: DialInCapabilityV1 | undefined;
  /**
   * What a verified flow verified (the full phone number, or the identity type and the number's keyed
   * hash; when; by which provider), for the backend only. A flow not verified: `FlowNotVerifiedError`.
   */
  verification(flowId: string): Promise<Verification>;
  /** A short-lived sealed proof that a flow is verified, for the browser to hand to the app's signup endpoint (default 5 minutes). */
  issueProof(flowId: string, options?: IssueProofOptions): Promise<IssuedProof>;
  /**
   * On the signup endpoint: accepts a proof once, for the number it proves; resolves to what was
   * verified. Otherwise a `ProofRejectedError` whose `reason` is `invalid`, `expired`, `mismatch`, `used` or
   * `method` (the flow verified by a method not in `options.methods`: by default, a "who is this" dial-in).
   */
  redeemProof(token: string, claim: ProofClaim, options?: RedeemProofOptions): Promise<Verification>;
  /**
   * Redeems several proofs as one claim set, all or none (a phone and a BVN proof at account
   * creation): resolves to their verifications in order, or rejects with the first `ProofRejectedError`
   * having used none of them.
   */
  redeemProofs(
    proofs: readonly { token: string; claim: ProofClaim }[],
    options?: RedeemProofOptions,
  ): Promise<Verification[]>;
  /**
   * Sends one SMS through the provider; no flow is involved. With `options.idempotencyKey`, once per key across every
   * instance sharing the store: a repeat resolves with the first answer and sends nothing (decision 1660).
   */
  sendSms(
    input: SendSmsInput,
    options?: MessageOptions,
  ): Promise<
    MessageSendResultV1 & {
      /** The name of the engine's provider (`provider.name`), for logs and receipts. */
      provider: string;
    }
  >;
  /** Sends one WhatsApp message through the provider; no flow is involved. `options` as for `sendSms`. */
  sendWhatsApp(
    input: SendWhatsAppInput,
    options?: MessageOptions,
  ): Promise<
    MessageSendResultV1 & {
      /** The name of the engine's provider (`provider.name`), for logs and receipts. */
      provider: string;
    }
  >;
  /** The policies in force. */
  readonly policies: Readonly<FlowPolicies>;
  /** Calls `listener` once with each lifecycle event (or `'*'`: all) this engine commits (docs/flows.md); returns its remover. */
  on(type: FlowEventType | '*', listener: FlowEventListener): () => void;
  /**
   * Calls `listener` with each change of a failover member's circuit on this instance (`circuit-open`,
   * `circuit-half-open`, `circuit-closed`: docs/providers/README.md, "The breaker"); returns its remover. Not
   * included in `'*'`, which is every flow event.
   */
  on(type: CircuitEventType, listener: CircuitEventListener): () => void;
  /**
   * Delivers the events due to the app's webhook (`eventWebhook`) now: the ones this or another instance
   * committed and has not delivered, and the retries due. Resolves with how many were delivered; 0 without
   * a webhook. The engine also does this after each commit and every `eventWebhook.pollMs`.
   */
  deliverEvents(): Promise<number>;
  /**
   * Carries out the flows' timers due now on the engine's clock (an escalating plan's next channel, the fallback after
   * a failed delivery), the ones this or another instance scheduled; resolves once each has acted and the sends it
   * started have settled, with how many changed their flow. The engine also does this every `timers.pollMs`. With a
   * manual clock (a simulation, a test): advance the clock, then await this (docs/plans.md).
   */
  runDueTimers(): Promise<number>;

  /**
   * The cost ledger: what this engine's sends cost so far, per provider, channel and country, priced on the send
   * guard's rate card (`guard.prices`) when each went out. Undefined without a rate card (docs/abuse.md).
   */
  costs(): CostReport | undefined;

  /**
   * Stops this instance's background work: the timers' poll, the event webhook's poll, and the retries of delivery
   * routes a store failure left unwritten (each is tried once more now). Resolves once the passes and writes
   * running now have ended (a fallback a receipt made due, being sent, included), so the store may be closed after it
   * without a failing pass. Flows, timers and events stay in the store for the other instances, or for this one's
   * next start. Other calls still work after it; only background work is gone (`runDueTimers` and `deliverEvents`
   * resolve 0). Idempotent.
   */
  close(): Promise<void>;
}
