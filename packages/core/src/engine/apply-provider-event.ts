import type { DeliveryEventV1, ProviderEventV1 } from '@verikit/provider';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import type { FlowDefinition, FlowEnvironment, InternalEvent } from '../flows/flow-definition.js';
import { deliveryEventOf, deliveryFailedOf, deliveryRoute } from '../inbound/delivery-receipts.js';
import { flowDefinitions } from '../flows/flow-definitions.js';
import { referencesIn } from '../flows/inbound-step.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import { acceptSilently, type CommitLoop } from './commit-loop.js';
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

/** What applying a provider event uses. */
export interface ProviderEventDeps {
  readonly store: FlowStore;
  readonly commits: CommitLoop;
  readonly env: FlowEnvironment;
  /** The engine call's share of the store. */
  readonly call?: StoreCall | undefined;
  /**
   * Asks this instance's timer worker for a pass now, and does not wait for it: a fallback a failed delivery made due
   * is sent at once, after the answer (the provider's webhook waits for the commit, not for the send). The worker
   * holds the pass: `verikit.runDueTimers()` joins it and `verikit.close()` waits for it, so it is never lost or left
   * running unseen.
   */
  readonly scheduleDueTimers: () => void;
  /** The send guard, which counts wrong dial-in references; undefined when it is off. */
  readonly guard?: SendGuard | undefined;
  /** The engine's clock, for a refusal's `retryAt`. */
  readonly clock: Clock;
}

/**
 * Finds the flow a checked provider event concerns through the route key its flow wrote, and
 * applies it there. An event no live flow waits for is no error: the flow ended, expired, or was
 * never started here. An `undelivered` receipt, once recorded, raises `delivery-failed` in a second commit: a
 * fallback to the next channel it makes due is sent by the flow's timer, under the send limit like any send, which
 * this instance runs at once and any other carries out if this one dies (decision 1561). This resolves once the
 * fallback is due in the flow's record.
 */
export async function applyProviderEvent(deps: ProviderEventDeps, event: ProviderEventV1): Promise<AppliedEvent> {
  const sender = referenceSender(event);
  if (sender === undefined || deps.guard === undefined) return applyRouted(deps, event);
  // A dial, or a message carrying a reference, takes a unit of the wrong-reference limits (a `RateLimitedError` when
  // they are spent) and gives it back when its reference was right: only guesses count, and a guesser is stopped
  // before the lookup (decisions 1541, 1695).
  const release = await deps.guard.admitDial(sender, deps.clock.now(), deps.call);
  let applied: AppliedEvent | undefined;
  try {
    applied = await applyRouted(deps, event);
    return applied;
  } finally {
    if (applied?.outcome !== 'no-active-flow') await release();
  }
}

/**
 * The number that sent a reference, for the wrong-reference limits: a dial's, or an inbound message's when its text
 * carries a reference at all (a user's "hello" or "STOP" to the number is no guess and counts nothing).
 */
function referenceSender(event: ProviderEventV1): string | undefined {
  if (event.type === 'dial-in') return event.phoneNumber;
  if (event.type === 'inbound-message' && referencesIn(event.text).length > 0) return event.from;
  return undefined;
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
    const fallback = await deps.commits.commit(
      flowId,
      (_loaded, now) => ({ event: { ...failed, now } as InternalEvent, onRefused: acceptSilently }),
      committed.loaded,
      deps.call,
    );
    if (!fallback.changed) return { outcome: 'applied', flowId, view: committed.view() };
    if (fallback.loaded.flow.definition.wakeAt?.(fallback.loaded.snapshot) !== undefined) deps.scheduleDueTimers();
    return { outcome: 'applied', flowId, view: fallback.view() };
  } catch (error) {
    if (FlowNotFoundError.isInstance(error)) return { outcome: 'no-active-flow' };
    throw error;
  }
}
