import {
  InvalidInputError,
  VerikitError,
  type MessageSendResultV1,
  type WebhooksCapabilityV1,
} from '@verikit/provider';
import { StoreError } from '../errors/store-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { FlowEnvironment } from '../flows/flow-definition.js';
import type { CallOptions } from '../guard/call-options.js';
import { SendGuard } from '../guard/send-guard.js';
import { memorySendGuardStore } from '../store/send-guard-store.js';
import type { FlowPolicies } from '../flows/policies.js';
import type { SendSmsInput, SendWhatsAppInput, StartInput, UserEvent } from '../inputs/inputs.js';
import { parseFlowId } from '../inputs/parse-flow-id.js';
import type { IssueProofOptions, ProofClaim } from '../proof/proof-inputs.js';
import { FlowSecrets } from '../ownership/flow-secrets.js';
import { Proofs, type IssuedProof } from '../proof/proofs.js';
import type { Verification } from '../proof/verification.js';
import { SecretBox } from '../secrets/secrets.js';
import { safeStoreCause } from '../store/safe-store-cause.js';
import type { FlowListener } from './change-bus.js';
import { CommitLoop } from './commit-loop.js';
import { EffectRunner } from './effect-runner.js';
import { FlowQueue } from './flow-queue.js';
import { FlowRecords } from './flow-records.js';
import { sendSms, sendWhatsApp } from './messaging.js';
import { resolveOptions, type VerikitOptions } from './options.js';
import { applyProviderEvent } from '../inbound/apply-provider-event.js';
import {
  receiveDelivery,
  type ProviderDelivery,
  type ReceiveOptions,
  type ReceiveResult,
} from '../inbound/receive-delivery.js';
import { SendLimit } from './send-limit.js';
import { startFlow } from './start-flow.js';
import { applyUserEvent } from './user-event.js';
import { toView, type FlowView } from './view.js';

export type { VerikitOptions } from './options.js';
export type { Clock } from '../time/clock.js';
export type { CallOptions } from '../guard/call-options.js';
export type { ProviderDelivery, ReceiveOptions, ReceiveResult } from '../inbound/receive-delivery.js';

/** The verikit engine: starts flows, takes user events, runs provider calls, and sends messages. */
export interface Verikit {
  /**
   * Starts a flow and makes its first provider call; resolves with the view once that call settled.
   * `options.client` names who asks, for the send guard's per-client limit (docs/abuse.md).
   */
  start(input: StartInput, options?: CallOptions): Promise<FlowView>;
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
   * The one entry for what a provider tells us (today the USSD result): applies a verified
   * delivery's event to the flow it concerns, once per delivery id across every instance sharing
   * the store. A redelivery of an applied id is a `duplicate`; one that meets another delivery of
   * the same id is `in-progress`; a failure rejects and gives the id back, so the next delivery
   * applies it afresh (docs/webhooks.md). Verifying the delivery is the caller's job
   * (`@verikit/http`'s webhook route).
   */
  receive(delivery: ProviderDelivery, options?: ReceiveOptions): Promise<ReceiveResult>;
  /**
   * How the provider's webhooks are read into events: its `webhooks` capability, or `undefined`
   * when the provider sends no webhooks (then no webhook route is needed).
   */
  readonly webhooks: WebhooksCapabilityV1 | undefined;
  /**
   * What a verified flow verified (the full phone number, or the identity type and the number's keyed
   * hash; when; by which provider), for the backend only. A flow not verified: `FlowNotVerifiedError`.
   */
  verification(flowId: string): Promise<Verification>;
  /** A short-lived sealed proof that a flow is verified, for the browser to hand to the app's signup endpoint (default 5 minutes). */
  issueProof(flowId: string, options?: IssueProofOptions): Promise<IssuedProof>;
  /**
   * On the signup endpoint: accepts a proof once, for the number it proves; resolves to what was
   * verified. Otherwise a `ProofRejectedError` whose `reason` is `invalid`, `expired`, `mismatch` or `used`.
   */
  redeemProof(token: string, claim: ProofClaim): Promise<Verification>;
  /**
   * Redeems several proofs as one claim set, all or none (a phone and a BVN proof at account
   * creation): resolves to their verifications in order, or rejects with the first `ProofRejectedError`
   * having used none of them.
   */
  redeemProofs(proofs: readonly { token: string; claim: ProofClaim }[]): Promise<Verification[]>;
  /** Sends one SMS through the provider; no flow is involved. */
  sendSms(input: SendSmsInput): Promise<
    MessageSendResultV1 & {
      /** The name of the engine's provider (`provider.name`), for logs and receipts. */
      provider: string;
    }
  >;
  /** Sends one WhatsApp message through the provider; no flow is involved. */
  sendWhatsApp(input: SendWhatsAppInput): Promise<
    MessageSendResultV1 & {
      /** The name of the engine's provider (`provider.name`), for logs and receipts. */
      provider: string;
    }
  >;
  /** The policies in force. */
  readonly policies: Readonly<FlowPolicies>;
}

/**
 * Creates the engine. This file only wires its parts, each of which does one job: the commit loop
 * writes every change, the effect runner makes the provider calls, the flow definitions say what
 * each kind of flow needs (docs/decisions/0010-flow-definitions.md).
 *
 * @example
 * const verikit = createVerikit({ provider: createTestProviderV1(), secret: process.env.VERIKIT_SECRET! });
 * const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
 * const done = await verikit.send(flow.id, { type: 'submit-code', code: '123456' });
 */
export function createVerikit(options: VerikitOptions): Verikit {
  const settings = resolveOptions(options);
  const { provider, policies, store, clock, logger, bus } = settings;
  const env: FlowEnvironment = {
    provider,
    policies,
    secrets: new SecretBox(settings.secret),
    identityNumberPatterns: settings.identityNumberPatterns,
  };
  const records = new FlowRecords(store, policies);
  const commits = new CommitLoop({ records, queue: new FlowQueue(), store, clock, logger, bus, env });
  const guard =
    settings.guard &&
    new SendGuard(settings.guard, {
      store: settings.guard.store ?? store.sendGuardStore?.() ?? memorySendGuardStore(),
      secrets: env.secrets,
      logger,
    });
  const limits = new SendLimit(store, policies, guard);

  async function get(rawFlowId: string): Promise<FlowView> {
    const loaded = await records.load(parseFlowId(rawFlowId));
    const now = clock.now();
    return toView(records.ticked(loaded, now), loaded.record, now);
  }

  const effects = new EffectRunner({ commits, records, env, logger, read: get, limits });
  /** Live subscriptions made through this engine, per flow: `subscribed` is only meaningful after one. */
  const listening = new Map<string, number>();
  const proofs = new Proofs({
    records,
    store,
    clock,
    logger,
    secret: settings.secret,
    secrets: env.secrets,
    provider: provider.name,
  });

  const flowSecrets = new FlowSecrets(settings.secret);

  const verikit: Verikit = {
    policies,
    webhooks: provider.webhooks,
    start: (input, options) =>
      startFlow({ settings, env, records, commits, limits, effects, read: get }, input, options),
    flowSecret: (flowId) => flowSecrets.of(parseFlowId(flowId)),
    isFlowSecret: (flowId, secret) => flowSecrets.matches(parseFlowId(flowId), secret),
    send: (flowId, event, options) => applyUserEvent({ env, commits, limits, effects }, flowId, event, options),
    get,
    cancel: (flowId) => verikit.send(flowId, { type: 'cancel' }),
    subscribe(rawFlowId, listener) {
      const flowId = parseFlowId(rawFlowId);
      if (typeof listener !== 'function')
        throw new InvalidInputError([{ field: 'listener', message: 'must be a function' }]);
      const unsubscribe = bus.subscribe(flowId, listener);
      listening.set(flowId, (listening.get(flowId) ?? 0) + 1);
      let live = true;
      return () => {
        if (!live) return;
        live = false;
        const left = (listening.get(flowId) ?? 1) - 1;
        if (left > 0) listening.set(flowId, left);
        else listening.delete(flowId);
        unsubscribe();
      };
    },
    async subscribed(rawFlowId) {
      const flowId = parseFlowId(rawFlowId);
      // A programming error, not an outage: answered as such, never as a retryable store failure.
      if (!listening.has(flowId)) {
        throw new UsageError(
          'subscribed(flowId) waits for a subscription: call subscribe(flowId, listener) first, and keep it until subscribed resolves',
          {
            field: 'flowId',
          },
        );
      }
      try {
        await bus.subscribed?.(flowId);
      } catch (error) {
        if (VerikitError.isInstance(error)) throw error;
        throw new StoreError('live updates are unavailable: the change bus could not subscribe', {
          cause: safeStoreCause(error),
        });
      }
    },
    receive: (delivery, receiveOptions) =>
      receiveDelivery(
        { store, logger, apply: (event) => applyProviderEvent({ store, commits, env }, event) },
        delivery,
        receiveOptions,
      ),
    verification: (flowId) => proofs.verification(flowId),
    issueProof: (flowId, proofOptions) => proofs.issue(flowId, proofOptions),
    redeemProof: (token, claim) => proofs.redeem(token, claim),
    redeemProofs: (items) => proofs.redeemAll(items),
    sendSms: (input) => sendSms(settings, input),
    sendWhatsApp: (input) => sendWhatsApp(settings, input),
  };
  return verikit;
}
