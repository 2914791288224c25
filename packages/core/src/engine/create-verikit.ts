import { ProviderUnavailableError } from '@verikit/provider';
import type { FlowEnvironment } from '../flows/flow-definition.js';
import { SendGuard } from '../guard/send-guard.js';
import { memorySendGuardStore } from '../store/send-guard-store.js';
import { parseFlowId, phoneStartByHand } from '../inputs/inputs.js';
import { Proofs } from '../proof/proofs.js';
import { SecretBox, FlowSecrets } from '../secrets/secrets.js';
import { createReviewNumbers } from '../flows/review-numbers.js';
import { Subscriptions } from './subscriptions.js';
import type { StoreCall } from '../store/flow-store.js';
import { CallDeadlines } from './call-deadlines.js';
import { CommitLoop, FlowQueue } from './commit-loop.js';
import { EffectRunner } from './effect-runner.js';
import { FlowRecords } from './flow-records.js';
import { sendSms, sendWhatsApp } from './messaging.js';
import { resolveOptions, type VerikitOptions } from './options.js';
import { applyProviderEvent } from './apply-provider-event.js';
import { receiveInboundEvent } from '../inbound/receive-inbound-event.js';
import { SendLimit } from './send-limit.js';
import { LifecycleListeners } from './after-commit/emit-lifecycle-events.js';
import { circuitEventOf } from './circuit-events.js';
import { EventWebhook } from '../outbound/event-webhook.js';
import { memoryEventOutbox } from '../store/event-outbox.js';
import { memoryFlowTimers } from '../store/flow-timers.js';
import { TimerWorker } from './timer-worker.js';
import { StartInputs, startFlow } from './start-flow.js';

import { applyUserEvent } from './user-event.js';
import { toView, type FlowView } from '../flows/view.js';
import type { Verikit } from './verikit.js';

export type { Verikit } from './verikit.js';
export type { VerikitOptions } from './options.js';
export type { Clock } from '../time/clock.js';
export type { TimerOptions } from './timer-worker.js';
export type { CallOptions } from '../inputs/inputs.js';
export type {
  InboundEvent,
  ProviderDelivery,
  ReceiveOptions,
  ReceiveResult,
} from '../inbound/receive-inbound-event.js';
export type { FlowEvent, FlowEventListener, FlowEventType } from '../flows/view.js';
export type { CircuitEvent, CircuitEventListener, CircuitEventType } from './circuit-events.js';
export type {
  EventWebhookFailure,
  EventWebhookGiveUpReason,
  EventWebhookOptions,
} from '../outbound/event-webhook-options.js';

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
  const { provider, policies, store, clock, logger, bus, telemetry } = settings;
  const secrets = new SecretBox(settings.secret);
  const env: FlowEnvironment = {
    provider,
    policies,
    secrets,
    identityNumberPatterns: settings.identityNumberPatterns,
    reviewNumbers: createReviewNumbers(settings.reviewNumbers, secrets, logger, settings.defaultCountry),
  };
  const records = new FlowRecords(store, policies);
  const events = new LifecycleListeners(logger);
  // The provider's breakers (withFailover's), logged and told here: the engine knows only the spec's `circuits`.
  provider.circuits?.subscribe((change) => events.emitCircuit(circuitEventOf(change, logger)));
  const outbox = settings.eventWebhook && (store.eventOutbox?.() ?? memoryEventOutbox());
  const webhook = outbox && new EventWebhook(settings.eventWebhook!, { store, outbox, clock, logger });
  const timers = store.flowTimers?.() ?? memoryFlowTimers();
  const guard =
    settings.guard &&
    new SendGuard(settings.guard, {
      store: settings.guard.store ?? store.sendGuardStore?.() ?? memorySendGuardStore(),
      secrets: env.secrets,
      logger,
    });
  const commits = new CommitLoop({
    guard,
    timers,
    records,
    queue: new FlowQueue(),
    store,
    clock,
    logger,
    bus,
    env,
    telemetry,
    events,
    webhook,
  });
  const limits = new SendLimit(store, policies, guard);

  async function get(rawFlowId: string, call?: StoreCall): Promise<FlowView> {
    const loaded = await records.load(parseFlowId(rawFlowId), call);
    const now = clock.now();
    return toView(records.ticked(loaded, now), loaded.record, now, env.secrets);
  }

  // Every provider call's deadline, flows' and messages' alike; calls that start together share it (decision 1470).
  const deadlines = new CallDeadlines(
    () => new ProviderUnavailableError('the provider did not answer before the deadline'),
  );
  const effects = new EffectRunner({
    commits,
    records,
    store,
    clock,
    env,
    logger,
    telemetry,
    read: get,
    limits,
    deadlines,
  });
  const subscriptions = new Subscriptions(bus);
  const proofs = new Proofs({
    async read(flowId, call) {
      const loaded = await records.load(flowId, call);
      return { record: loaded.record, status: String(records.ticked(loaded, clock.now()).value) };
    },
    store,
    clock,
    logger,
    secret: settings.secret,
    secrets: env.secrets,
    provider: provider.name,
  });

  /** Start inputs parsed once: `parseStartInput`'s result goes to `start` as it is. */
  const startInputs = new StartInputs(
    settings.inputs.start,
    phoneStartByHand(settings.defaultCountry, settings.inputs.phoneStart),
  );
  const flowSecrets = new FlowSecrets(settings.secret);
  /** One engine call: the store may bound all its commands by one deadline (the Redis store's `commandTimeoutMs`). */
  function within<T>(work: (call: StoreCall | undefined) => Promise<T>): Promise<T> {
    const call = store.openCall?.();
    return call === undefined ? work(undefined) : work(call).finally(() => call.end());
  }

  const timerWorker = new TimerWorker(settings.timers, {
    timers,
    store,
    claimMs: policies.codeTtlMs + policies.effectTimeoutMs,
    records,
    effects,
    clock,
    logger,
    within,
  });

  const verikit: Verikit = {
    policies,
    webhooks: provider.webhooks,
    dialIn: provider.dialIn,
    parseStartInput: (input) => startInputs.parse(input),
    on: (type: never, listener: never) => events.on(type, listener),
    deliverEvents: () => webhook?.deliver() ?? Promise.resolve(0),
    runDueTimers: () => timerWorker.runDue(),
    costs: () => guard?.costs(),
    async close() {
      await Promise.all([timerWorker.close(), webhook?.close(), effects.close()]);
    },
    start: (input, options) =>
      telemetry.start((input as { kind?: unknown } | undefined)?.kind, () =>
        within((call) =>
          startFlow(
            { settings, env, records, commits, limits, effects, deadlines, inputs: startInputs, read: get, call },
            input,
            options,
          ),
        ),
      ),
    flowSecret: (flowId) => flowSecrets.of(parseFlowId(flowId)),
    isFlowSecret: (flowId, secret) => flowSecrets.matches(parseFlowId(flowId), secret),
    send: (flowId, event, options) =>
      within((call) =>
        applyUserEvent({ env, commits, limits, effects, store, read: get, call }, flowId, event, options),
      ),
    get: (flowId) => within((call) => get(flowId, call)),
    cancel: (flowId) => verikit.send(flowId, { type: 'cancel' }),
    subscribe: (flowId, listener) => subscriptions.subscribe(flowId, listener),
    subscribed: (flowId) => subscriptions.subscribed(flowId),
    receive: (delivery, receiveOptions) =>
      telemetry.receive(() =>
        within((call) =>
          receiveInboundEvent(
            {
              store,
              logger,
              call,
              apply: (event) =>
                applyProviderEvent(
                  { store, commits, env, call, scheduleDueTimers: () => void timerWorker.runDue(), guard, clock },
                  event,
                ),
            },
            delivery,
            receiveOptions,
          ),
        ),
      ),
    verification: (flowId) => within((call) => proofs.verification(flowId, call)),
    issueProof: (flowId, proofOptions) => within((call) => proofs.issue(flowId, proofOptions, call)),
    redeemProof: (token, claim, redeemOptions) => within((call) => proofs.redeem(token, claim, redeemOptions, call)),
    redeemProofs: (items, redeemOptions) => within((call) => proofs.redeemAll(items, redeemOptions, call)),
    sendSms: (input, messageOptions) => sendSms({ settings, deadlines, secrets: env.secrets }, input, messageOptions),
    sendWhatsApp: (input, messageOptions) =>
      sendWhatsApp({ settings, deadlines, secrets: env.secrets }, input, messageOptions),
  };
  return verikit;
}
