import { parseInput } from '@verikit/provider';
import { FlowNotFoundError } from '../errors/flow-not-found-error.js';
import type { FlowEnvironment } from '../flows/flow-definition.js';
import { flowDefinitions } from '../flows/flow-definitions.js';
import { providerEventSchema } from '../inputs/inputs.js';
import type { FlowStore } from '../store/flow-store.js';
import { acceptSilently, type CommitLoop } from './commit-loop.js';
import type { FlowView } from './view.js';

/** What `receive` did with a provider event. */
export interface ReceiveResult {
  /**
   * `applied` when a live flow took the event; `no-active-flow` when none waits for it (ended, expired, or never
   * started here).
   */
  readonly outcome: 'applied' | 'no-active-flow';
  /** The flow that took the event, when one did. */
  readonly flowId?: string;
  /** That flow's view after the event. */
  readonly view?: FlowView;
}

const routes = Object.values(flowDefinitions).flatMap((definition) =>
  definition.providerEvent ? [definition.providerEvent] : [],
);

/**
 * `verikit.receive`: finds the flow a verified provider event concerns through the route key its
 * flow wrote, and applies it there. An event no live flow waits for is no error: the flow ended,
 * expired, or was never started here.
 */
export async function receiveProviderEvent(
  deps: { store: FlowStore; commits: CommitLoop; env: FlowEnvironment },
  rawEvent: unknown,
): Promise<ReceiveResult> {
  const event = parseInput(providerEventSchema, rawEvent, 'event');
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
