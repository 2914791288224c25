import { KeyvFlowStore, type FlowTimers } from '@verikit/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace } from './redis-cluster.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, uniqueNamespace } from './redis-test-env.fixtures.js';

const redisSkip = await redisSkipReason('@verikit/redis flow timers');
const clusterSkip = await clusterSkipReason('@verikit/redis flow timers on Redis Cluster');

/** What every `FlowTimers` promises, the memory ones and the shared ones alike. */
function timersContract(make: () => FlowTimers) {
  it('takes a timer once it is due, and leases it: no second take returns it before the lease ends', async () => {
    const timers = make();
    await timers.schedule('f-due', 1_000);
    expect(await timers.take(999, 500, 10)).toEqual([]);
    expect(await timers.take(1_000, 500, 10)).toEqual([{ flowId: 'f-due', leasedUntil: 1_500 }]);
    expect(await timers.take(1_499, 500, 10)).toEqual([]);
    // The taker died: the lease ends and another takes it.
    expect(await timers.take(1_500, 500, 10)).toEqual([{ flowId: 'f-due', leasedUntil: 2_000 }]);
  });

  it('keeps the sooner of two schedules', async () => {
    const timers = make();
    await timers.schedule('f-sooner', 2_000);
    await timers.schedule('f-sooner', 3_000);
    expect(await timers.take(2_000, 100, 10)).toEqual([{ flowId: 'f-sooner', leasedUntil: 2_100 }]);
  });

  it('settles a take: removed, or moved to the next wake; a schedule made meanwhile stands', async () => {
    const timers = make();
    await timers.schedule('f-a', 1_000);
    await timers.schedule('f-b', 1_000);
    const taken = await timers.take(1_000, 1_000, 10);
    expect(taken.map((timer) => timer.flowId).sort()).toEqual(['f-a', 'f-b']);
    const a = taken.find((timer) => timer.flowId === 'f-a')!;
    const b = taken.find((timer) => timer.flowId === 'f-b')!;
    await timers.settle(a, undefined);
    await timers.schedule('f-b', 1_200);
    await timers.settle(b, 5_000);
    expect(await timers.take(4_000, 1_000, 10)).toEqual([{ flowId: 'f-b', leasedUntil: 5_000 }]);
    const again = await timers.take(5_000, 1_000, 10);
    expect(again).toEqual([{ flowId: 'f-b', leasedUntil: 6_000 }]);
    await timers.settle(again[0]!, 9_000);
    expect(await timers.take(8_999, 1_000, 10)).toEqual([]);
    expect(await timers.take(9_000, 1_000, 10)).toEqual([{ flowId: 'f-b', leasedUntil: 10_000 }]);
  });

  it('takes at most the limit, across every flow', async () => {
    const timers = make();
    for (let index = 0; index < 20; index += 1) await timers.schedule(`f-many-${index}`, 100 + index);
    const first = await timers.take(1_000, 10_000, 15);
    const second = await timers.take(1_000, 10_000, 15);
    expect(first).toHaveLength(15);
    expect(second).toHaveLength(5);
    expect(new Set([...first, ...second].map((timer) => timer.flowId)).size).toBe(20);
  });
}

describe('flow timers in memory', () => {
  timersContract(() => new KeyvFlowStore().flowTimers());
});

describe.skipIf(redisSkip !== undefined)('flow timers on Redis', () => {
  const namespaces: string[] = [];
  const stores: RedisFlowStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const namespace of namespaces) await deleteNamespace(namespace);
  });
  timersContract(() => {
    const namespace = uniqueNamespace('timers');
    namespaces.push(namespace);
    const store = createRedisStore({ namespace });
    stores.push(store);
    return store.flowTimers();
  });
});

describe.skipIf(clusterSkip !== undefined)('flow timers on Redis Cluster', () => {
  const namespaces: string[] = [];
  const stores: RedisFlowStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    for (const namespace of namespaces) await deleteClusterNamespace(clusterUrls, namespace);
  });
  timersContract(() => {
    const namespace = uniqueNamespace('timers-cluster');
    namespaces.push(namespace);
    const store = createRedisClusterStore({ urls: clusterUrls, namespace });
    stores.push(store);
    return store.flowTimers();
  });
});
