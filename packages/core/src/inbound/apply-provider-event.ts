import type { DeliveryEventV1, ProviderEventV1 } from '@verikit/provider';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import type { FlowDefinition, FlowEnvironment, InternalEvent } from '../flows/flow-definition.js';
import { deliveryEventOf, deliveryRoute } from './delivery-receipts.js';
import { flowDefinitions } from '../flows/flow-definitions.js';
import type { FlowStore } from '../store/flow-store.js';
import { acceptSilently, type CommitLoop } from '../engine/commit-loop.js';
import type { FlowView } from '../engine/view.js';

/** What applying one provider event did. */
export type AppliedEvent =
  /** A live flow took the event. */
  | { readonly outcome: 'applied'; readonly flowId: string; readonly view: FlowView }
  /** No flow waits for it: it ended, expired, or was never started here. */
  | { readonly outcome: 'no-active-flow'; readonly flowId?: string };

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

/**
 * Finds the flow a checked provider event concerns through the route key its flow wrote, and
 * applies it there. An event no live flow waits for is no error: the flow ended, expired, or was
 * never started here.
 */
export async function applyProviderEvent(
  deps: { store: FlowStore; commits: CommitLoop; env: FlowEnvironment },
  event: ProviderEventV1,
): Promise<AppliedEvent> {
  const route = routes.find((candidate) => candidate.type === event.type);
  let flowId: string | undefined;
  for (const key of route?.routeKeys(event, deps.env) ?? []) {
    flowId = await deps.store.getRoute(key);
    if (flowId !== undefined) break;
  }
  if (route === undefined || flowId === undefined) return { outcome: 'no-active-flow' };
  try {
    const committed = await deps.commits.commit(flowId, (_loaded, now) => ({
      event: route.toEvent(event, now),
      onRefused: acceptSilently,
    }));
    if (!committed.changed) return { outcome: 'no-active-flow', flowId };
    return { outcome: 'applied', flowId, view: committed.view };
  } catch (error) {
    if (FlowNotFoundError.isInstance(error)) return { outcome: 'no-active-flow' };
    throw error;
  }
}
