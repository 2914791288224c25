import { createVerikit, StoreError, type FlowView } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisChangeBus, type RedisChangeBus } from './redis-change-bus.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import {
  clusterSkipReason,
  clusterUrls,
  deleteClusterNamespace,
  mastersOf,
  onNode,
  slotOf,
} from './redis-cluster.fixtures.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { freePort, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await clusterSkipReason('@verikit/redis on Redis Cluster');
const secret = 'redis-cluster-test-secret-0123456789abcdef';

let numberSeed = Math.floor(Math.random() * 40_000_000);
function freshPhoneNumber(): string {
  numberSeed += 1;
  return `+234805${String(numberSeed % 10_000_000).padStart(7, '0')}`;
}

/** Resolves with the first view `predicate` accepts, among those the listener got. */
function collector() {
  const views: FlowView[] = [];
  let check: () => void = () => {};
  const listener = (view: FlowView) => {
    views.push(view);
    check();
  };
  const until = (predicate: (view: FlowView) => boolean) =>
    new Promise<FlowView>((resolve) => {
      check = () => {
        const found = views.find(predicate);
        if (found) resolve(found);
      };
      check();
    });
  return { views, listener, until };
}

describe.skipIf(skipReason !== undefined)('Redis Cluster (the shared test cluster)', () => {
  const namespace = uniqueNamespace('cluster');
  const stores: RedisFlowStore[] = [];
  const buses: RedisChangeBus[] = [];

  /** One app instance on the cluster, as docs/scaling.md builds it. */
  function instance(pubSub?: 'classic' | 'sharded') {
    const provider = createTestProviderV1();
    const store = createRedisClusterStore({ urls: clusterUrls, namespace });
    const resynced = new Set<string>();
    const changeBus = createRedisChangeBus({
      store,
      ...(pubSub ? { pubSub } : {}),
      onResync: (flowIds) => {
        for (const id of flowIds) resynced.add(id);
      },
    });
    stores.push(store);
    buses.push(changeBus);
    // Many flows to consecutive numbers: the send guard is out of the way here (redis-send-guard.test.ts tests it on the cluster).
    const verikit = createVerikit({ provider, store, changeBus, secret, guard: false });
    return { provider, store, changeBus, verikit, resynced };
  }

  afterAll(async () => {
    for (const bus of buses) await bus.close();
    for (const store of stores) await store.close();
    await deleteClusterNamespace(clusterUrls, namespace);
  });

  it('spreads flows over every master: each call touches one key, with no CROSSSLOT or MOVED error', async () => {
    const a = instance();
    const flows = await Promise.all(
      Array.from({ length: 24 }, () => a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })),
    );
    const slots = await Promise.all(flows.map((flow) => slotOf(clusterUrls[0]!, a.store.redisKey(`flow:${flow.id}`))));
    const masters = await mastersOf(clusterUrls[0]!);
    const used = new Set(
      slots.map(
        (slot) => masters.find((master) => master.slots.some(([from, to]) => from <= slot && slot <= to))?.port,
      ),
    );
    expect(used.size).toBe(3);
    const verified = await Promise.all(
      flows.map((flow) => a.verikit.send(flow.id, { type: 'submit-code', code: '123456' })),
    );
    expect(verified.map((view) => view.status)).toEqual(flows.map(() => 'verified'));
    expect(await a.store.keyv.get(`flow:${flows[0]!.id}`)).toEqual(await a.store.getFlow(flows[0]!.id));
  });

  for (const pubSub of ['sharded', 'classic'] as const) {
    it(`delivers to a flow subscribed in the first millisecond after start (${pubSub} pub/sub)`, async () => {
      const a = instance(pubSub);
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      // A new instance: its bus is created, and a flow subscribed, before anything is connected.
      const b = instance(pubSub);
      const seen = collector();
      b.verikit.subscribe(flow.id, seen.listener);
      await b.changeBus.subscribed(flow.id);
      const done = await a.verikit.send(flow.id, { type: 'submit-code', code: '123456' });
      expect(done.status).toBe('verified');
      expect((await seen.until((view) => view.version === done.version)).status).toBe('verified');
      // Pub/sub is at-most-once: a subscriber whose connection was lost and restored is told to re-read
      // (onResync) and may have missed a change meanwhile (docs/scaling.md). Without that, it saw every one.
      // The start's own last change may still be on its way when B subscribes: it may arrive first, in order.
      const versions = seen.views.map((view) => view.version);
      if (b.resynced.has(flow.id)) expect(versions.at(-1)).toBe(done.version);
      else expect(versions.filter((version) => version > flow.version)).toEqual([done.version - 1, done.version]);
      expect(versions).toEqual([...versions].sort((x, y) => x - y));
    });
  }

  it("sends a flow's changes to one shard with sharded pub/sub (SSUBSCRIBE on the master of the channel's slot)", async () => {
    const b = instance('sharded');
    b.changeBus.subscribe('sharded-flow', () => {});
    await b.changeBus.subscribed('sharded-flow');
    const channel = b.changeBus.channelOf('sharded-flow');
    const slot = await slotOf(clusterUrls[0]!, channel);
    const masters = await mastersOf(clusterUrls[0]!);
    const counts = await Promise.all(
      masters.map(async (master) => ({
        owns: master.slots.some(([from, to]) => from <= slot && slot <= to),
        subscribers: Number(
          (
            (await onNode(master.url, (client) => client.sendCommand(['PUBSUB', 'SHARDNUMSUB', channel]))) as unknown[]
          )[1],
        ),
      })),
    );
    expect(counts.filter((count) => count.owns).map((count) => count.subscribers)).toEqual([1]);
    expect(counts.filter((count) => !count.owns).every((count) => count.subscribers === 0)).toBe(true);
  });
});

describe('Redis Cluster store with no reachable seed', () => {
  it('fails at once with a retryable StoreError, and so does the change bus after its timeout', async () => {
    const store = createRedisClusterStore({ urls: [`redis://127.0.0.1:${await freePort()}`], namespace: 'no-cluster' });
    const bus = createRedisChangeBus({ store, subscribeTimeoutMs: 200 });
    try {
      const failure = await store.getFlow('some-flow').catch((error: unknown) => error);
      expect(StoreError.isInstance(failure), String(failure)).toBe(true);
      expect((failure as StoreError).isRetryable).toBe(true);
      bus.subscribe('flow-1', () => {});
      await expect(bus.subscribed('flow-1')).rejects.toSatisfy(
        (error: unknown) => StoreError.isInstance(error) && error.message.includes('within 200 ms'),
      );
    } finally {
      await bus.close();
      await store.disconnect();
    }
  });

  it('refuses malformed seeds and pub/sub modes with a TypeError naming the option, never echoing the value', () => {
    for (const urls of [[], ['http://10.0.0.1:6379'], 'redis://10.0.0.1:6379', [42]] as unknown[]) {
      expect(() => createRedisClusterStore({ urls } as never)).toThrow(/urls must be a non-empty list/);
    }
    expect(() => createRedisClusterStore({ urls: ['ftp://user:hunter2@host'] })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
    const store = createRedisClusterStore({ urls: ['redis://127.0.0.1:1'] });
    expect(() => createRedisChangeBus({ store, pubSub: 'broadcast' as never })).toThrow(
      /pubSub must be 'classic' or 'sharded'/,
    );
  });
});
