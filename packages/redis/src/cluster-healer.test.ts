import { createVerikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { healerFor, type HealableCluster } from './cluster-healer.js';
import { startLaggingNode, type SlotRange } from './lagging-node.fixtures.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { clusterSkipReason, clusterUrls, onNode, slotOf, waitUntil } from './redis-cluster.fixtures.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { freePort, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await clusterSkipReason('@verikit/redis cluster healer');

describe.skipIf(skipReason !== undefined)('the cluster healer (the shared test cluster)', () => {
  const stores: RedisFlowStore[] = [];
  const closers: Array<() => Promise<void>> = [];

  afterAll(async () => {
    for (const close of closers) await close();
    for (const store of stores) await store.disconnect().catch(() => undefined);
  });

  it('a refresh from a node whose map still names a dead master does not stall the map: the flow is served again', async () => {
    const store = createRedisClusterStore({ urls: clusterUrls, namespace: uniqueNamespace('healer') });
    stores.push(store);
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      store,
      secret: 'redis-cluster-healer-test-secret-0123456789',
      guard: false,
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234567' });

    // What a node that has not yet heard of a promotion answers: the flow's slots on a master that is gone.
    const slot = await slotOf(clusterUrls[0]!, store.redisKey(`flow:${flow.id}`));
    const cluster = (await onNode(clusterUrls[0]!, (client) => client.sendCommand(['CLUSTER', 'SLOTS']))) as Array<
      [number, number, [string, number, string]]
    >;
    const owner = cluster.find(([from, to]) => from <= slot && slot <= to)![2][1];
    const deadPort = await freePort();
    const lagging = await startLaggingNode(
      cluster.map(
        ([from, to, [host, port, id]]): SlotRange =>
          port === owner ? [from, to, ['127.0.0.1', deadPort, 'a-master-that-died']] : [from, to, [host, port, id]],
      ),
    );
    closers.push(lagging.close);

    const client = store.client as unknown as HealableCluster;
    await healerFor(client).refresh({ options: { socket: { host: '127.0.0.1', port: lagging.port } } });
    // The lagging answer was taken: the flow's slot names the dead node.
    expect(client._slots.slots[slot]?.master.address).toBe(`127.0.0.1:${deadPort}`);

    // The healer's next check asks a live node, finds the map stale, and refreshes it: node-redis's own refresh must
    // not still be waiting on its connection to the dead node.
    const servedAgain = await waitUntil(
      () =>
        verikit.get(flow.id).then(
          () => true,
          () => false,
        ),
      15_000,
      100,
    );
    expect(servedAgain, 'the flow was not served again within 15 s').toBe(true);
    expect(client._slots.slots[slot]?.master.address).toBe(`127.0.0.1:${owner}`);
    expect(client._slots.nodeByAddress.has(`127.0.0.1:${deadPort}`)).toBe(false);
  }, 30_000);
});
