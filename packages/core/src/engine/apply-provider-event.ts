import type { DeliveryEventV1, ProviderEventV1 } from '@verikit/provider';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import type { FlowDefinition, FlowEnvironment, InternalEvent } from '../flows/flow-definition.js';
import { deliveryEventOf, deliveryFailedOf, deliveryRoute } from '../inbound/delivery-receipts.js';
import { flowDefinitions } from '../flows/flow-definitions.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import { acceptSilently, type CommitLoop } from './commit-loop.js';
import type { EffectRunner } from './effect-runner.js';
import type { AppliedEvent } from '../inbound/receive-inbound-event.js';
import type { SendGuard } from '../guard/send-guard.js';
import type { Clock } from '../time/clock.js';

/** Receipts concern every kind of flow that sends: one route, by the id the send returned. */
const deliveryReceipts: NonNullable<FlowDefinition['providerEvent']> = {
  type: 'delivery',
  routeKeys: (event, { secrets }) => (event.type === 'delivery' ? [deliveryRoute(secrets, event.messageId)] : []),
  toEvent: (event, now) => deliveryEventOf(event as DeliveryEventV1, now) as unknown as InternalEvent,
};

const routes = [
  ...Object.values(flowDefinitions).flatMap((definition) =>
    definition.providerEvent ? [definition.providerEvent] : [],
  ),
  deliveryReceipts,
];

/** What applying a provider event uses: the effect runner commits a fallback under the send limit and sends it. */
export interface ProviderEventDeps {
  readonly store: FlowStore;
  readonly commits: CommitLoop;
  readonly env: FlowEnvironment;
  readonly effects: EffectRunner;
  /** The engine call's share of the store. */
  readonly call?: StoreCall | undefined;
  /**
   * Runs work after the answer, in an engine call of its own (the delivery's call ends with it): the fallback's send,
   * so that a provider's webhook is answered once the fallback is committed, not once it was sent.
   */
  readonly later: (work: (call: StoreCall | undefined) => Promise<unknown>) => void;
  /** The send guard, which counts wrong dial-in references; undefined when it is off. */
  readonly guard?: SendGuard | undefined;
  /** The engine's clock, for a refusal's `retryAt`. */
  readonly clock: Clock;
}

/**
 * Finds the flow a checked provider event concerns through the route key its flow wrote, and
 * applies it there. An event no live flow waits for is no error: the flow ended, expired, or was
 * never started here. An `undelivered` receipt, once recorded, raises `delivery-failed` in a second commit: a
 * fallback to the next channel it starts takes the send limit like any send (committed with `fallback: false`
 * when the limit refuses). This resolves once the fallback is committed (its effect in the flow's record, under
 * its deadline), with the flow `sending`; the send runs after, through `later` (decision 1311).
 */
export async function applyProviderEvent(deps: ProviderEventDeps, event: ProviderEventV1): Promise<AppliedEvent> {
  if (event.type !== 'dial-in' || deps.guard === undefined) return applyRouted(deps, event);
  // A dial takes a unit of the wrong-reference limits (a `RateLimitedError` when they are spent) and gives it back
  // when its reference was right: only guesses count, and a guesser is stopped before the lookup (decision 1541).
  const release = await deps.guard.admitDial(event.phoneNumber, deps.clock.now(), deps.call);
  let applied: AppliedEvent | undefined;
  try {
    applied = await applyRouted(deps, event);
    return applied;
  } finally {
    if (applied?.outcome !== 'no-active-flow') await release();
  }
}

/** Applies an event to the flow its route key names. */
async function applyRouted(deps: ProviderEventDeps, event: ProviderEventV1): Promise<AppliedEvent> {
  const route = routes.find((candidate) => candidate.type === event.type);
  let flowId: string | undefined;
  for (const key of route?.routeKeys(event, deps.env) ?? []) {
    flowId = await deps.store.getRoute(key, deps.call);
    if (flowId !== undefined) break;
  }
  if (route === undefined || flowId === undefined) return { outcome: 'no-active-flow' };
  try {
    const committed = await deps.commits.commit(
      flowId,
      (_loaded, now) => ({ event: route.toEvent(event, now, deps.env), onRefused: acceptSilently }),
      undefined,
      deps.call,
    );
    if (!committed.changed) return { outcome: 'no-active-flow', flowId };
    const failed = event.type === 'delivery' ? deliveryFailedOf(event) : undefined;
    if (failed === undefined) return { outcome: 'applied', flowId, view: committed.view() };
    const definition = committed.loaded.flow.definition;
    const fallback = await deps.effects.commitUnderSendLimit(flowId, definition, failed, undefined, deps.call);
    if (!fallback.changed) return { outcome: 'applied', flowId, view: committed.view() };
    deps.later((call) => deps.effects.run(flowId, fallback.effects, fallback.view, {}, fallback.loaded, call));
    return { outcome: 'applied', flowId, view: fallback.view() };
  } catch (error) {
    if (FlowNotFoundError.isInstance(error)) return { outcome: 'no-active-flow' };
    throw error;
  }
}
