import {
  InvalidInputError,
  parseInput,
  VerikitError,
  type Logger,
  type MessageSendResultV1,
  type ProviderEventV1,
  type ProviderV1,
} from '@verikit/provider';
import { StoreError } from '../errors/store-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { FlowEnvironment } from '../flows/flow-definition.js';
import type { CallOptions } from '../guard/call-options.js';
import { SendGuard } from '../guard/send-guard.js';
import { memorySendGuardStore } from '../guard/send-guard-store.js';
import type { FlowPolicies } from '../flows/policies.js';
import type { ParsedStartInput, SendSmsInput, SendWhatsAppInput, StartInput, UserEvent } from '../inputs/inputs.js';
import { parseFlowId } from '../inputs/parse-flow-id.js';
import type { IssueProofOptions, ProofClaim } from '../proof/proof-inputs.js';
import { Proofs, type IssuedProof } from '../proof/proofs.js';
import type { Verification } from '../proof/verification.js';
import { SecretBox } from '../secrets/secrets.js';
import type { FlowStore } from '../store/flow-store.js';
import { safeStoreCause } from '../store/safe-store-cause.js';
import type { FlowListener } from './change-bus.js';
import { CommitLoop } from './commit-loop.js';
import { EffectRunner } from './effect-runner.js';
import { FlowQueue } from './flow-queue.js';
import { FlowRecords } from './flow-records.js';
import { sendSms, sendWhatsApp } from './messaging.js';
import { resolveOptions, type Clock, type VerikitOptions } from './options.js';
import { receiveProviderEvent, type ReceiveResult } from './receive.js';
import { SendLimit } from './send-limit.js';
import { startFlow } from './start-flow.js';
import { applyUserEvent } from './user-event.js';
import { toView, type FlowView } from './view.js';

export type { Clock, VerikitOptions } from './options.js';
export type { CallOptions } from '../guard/call-options.js';
export type { ReceiveResult } from './receive.js';

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
   * `authorize`). Throws the same `InvalidInputError`.
   */
  parseStartInput(input: unknown): ParsedStartInput;
  /**
   * Applies a user event (`submit-code`, `resend`, `restart`, `cancel`) and any provider call it
   * starts; a resend or restart passes the send guard, for `options.client` where given.
   */
  send(flowId: string, event: UserEvent, options?: CallOptions): Promise<FlowView>;
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
  /** Applies a verified provider event (the USSD result) to the flow it concerns. */
  receive(event: ProviderEventV1): Promise<ReceiveResult>;
  /**
   * What a verified flow verified (the full phone number, or the identity type and the number's keyed
   * hash; when; by which provider), for the backend only. A flow not verified: `FlowNotVerifiedError`.
   */
  verification(flowId: string): Promise<Verification>;
  /** A short-lived signed proof that a flow is verified, for the browser to hand to the app's signup endpoint (default 5 minutes). */
  issueProof(flowId: string, options?: IssueProofOptions): Promise<IssuedProof>;
  /**
   * On the signup endpoint: accepts a proof once, for the number it proves; resolves to what was
   * verified. Otherwise a `ProofRejectedError` whose `reason` is `invalid`, `expired`, `mismatch` or `used`.
   */
  redeemProof(token: string, claim: ProofClaim): Promise<Verification>;
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
  /** The provider the engine was created with (its `webhooks.parse` reads the provider's webhooks). */
  readonly provider: ProviderV1;
  /** The engine's clock: what `now` means for every flow, webhook timestamps included. */
  readonly clock: Clock;
  /** The engine's logger. */
  readonly logger: Logger;
  /** The policies in force. */
  readonly policies: Readonly<FlowPolicies>;
  /** Where the engine keeps flows (the HTTP layer keeps webhook ids there too). */
  readonly store: FlowStore;
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

  const effects = new EffectRunner({ commits, records, env, logger, read: get });
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

  const verikit: Verikit = {
    policies,
    store,
    provider,
    clock,
    logger,
    parseStartInput: (input) => parseInput(settings.inputs.start, input),
    start: (input, options) => startFlow({ settings, env, records, commits, limits, effects }, input, options),
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
    receive: (event) => receiveProviderEvent({ store, commits, env }, event),
    verification: (flowId) => proofs.verification(flowId),
    issueProof: (flowId, proofOptions) => proofs.issue(flowId, proofOptions),
    redeemProof: (token, claim) => proofs.redeem(token, claim),
    sendSms: (input) => sendSms(settings, input),
    sendWhatsApp: (input) => sendWhatsApp(settings, input),
  };
  return verikit;
}
