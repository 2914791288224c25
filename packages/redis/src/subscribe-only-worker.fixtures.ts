/**
 * A process that only follows flows, for subscribe-only-failover.test.ts (run as its own Node process, see
 * `WorkerProcess`): a cluster store and a change bus over it, and nothing else. It never reads or writes a flow and
 * never calls `store.connect()` (docs/scaling.md calls that optional), as a server that only pushes live changes to
 * browsers would. It reports every view it hears and every `onResync`, as they come.
 */
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { parentMessages } from './multi-process.fixtures.js';

/** What the parent asks for. */
export interface SubscribeOnlyPlan {
  readonly clusterUrls: readonly string[];
  readonly namespace: string;
  readonly pubSub?: 'classic' | 'sharded';
  readonly flowIds: readonly string[];
}

/** The worker's messages: `{ heard }` for each view, `{ resync }` for each onResync, `{ ready }` once subscribed. */
export interface HeardView {
  readonly flowId: string;
  readonly version: number;
}

const send = (message: unknown) => process.send!(message);
const next = parentMessages();

const plan = (await next()) as SubscribeOnlyPlan;
const store = createRedisClusterStore({ urls: plan.clusterUrls, namespace: plan.namespace });
const changeBus = createRedisChangeBus({
  store,
  ...(plan.pubSub ? { pubSub: plan.pubSub } : {}),
  onResync: (flowIds) => send({ resync: [...flowIds] }),
});
for (const flowId of plan.flowIds)
  changeBus.subscribe(flowId, (view) => send({ heard: { flowId, version: view.version } satisfies HeardView }));
await Promise.all(plan.flowIds.map((flowId) => changeBus.subscribed(flowId)));
send({ ready: true });
await next(); // "done"
await changeBus.close();
await store.close();
process.disconnect();
