/**
 * The shared circuits on their own: their keys and channel, a Redis that goes away (each instance goes on alone and
 * warns), and Redis Cluster (the shared test cluster). Two failover providers in this process, each with its own
 * Redis connections, stand for two instances; circuits-across-instances.test.ts runs them as separate processes.
 */
import { createClient } from '@keyv/redis';
import type { CircuitChangeV1, Logger, ProviderCallContextV1, ProviderV1, SharedCircuitsV1 } from '@verikit/provider';
import { withFailover } from '@verikit/provider-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postingPhoneProvider, startSwitchableService } from './circuits.fixtures.js';
import { createRedisCircuits, type RedisCircuits } from './redis-circuits.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace, slotOf, waitUntil } from './redis-cluster.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import {
  deleteNamespace,
  PrivateRedis,
  redisServerSkipReason,
  redisSkipReason,
  redisUrl,
  uniqueNamespace,
} from './redis-test-env.fixtures.js';

const unavailable = await redisSkipReason('shared failover circuits');
const noServer = await redisServerSkipReason('shared failover circuits in a Redis outage');
const noCluster = await clusterSkipReason('shared failover circuits on Redis Cluster');

type Service = Awaited<ReturnType<typeof startSwitchableService>>;

const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
const logger: Logger = {
  debug: () => {},
  info: () => {},
  warn: (message, fields) => void warnings.push({ message, ...(fields ? { fields } : {}) }),
  error: () => {},
};
let sent = 0;
const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: `flow-${++sent}`,
  logger,
});
const send = (provider: ProviderV1) =>
  provider.phone!.send({ phoneNumber: '+2348031230001', channel: 'sms' }, context()).then(
    (result) => result.sentBy,
    (error: { code?: string }) => error.code,
  );

/** One instance: a failover provider over the two services, its breakers shared through `circuits`. */
function instance(circuits: RedisCircuits, first: Service, second: Service, halfOpenAfterMs = 60_000) {
  const changes: CircuitChangeV1[] = [];
  const provider = withFailover(
    [postingPhoneProvider('first', first.url, 500), postingPhoneProvider('second', second.url, 500)],
    { breaker: { threshold: 2, halfOpenAfterMs, shared: circuits, onStateChange: (change) => changes.push(change) } },
  );
  return { provider, changes };
}

describe('shared failover circuits', () => {
  let first: Service;
  let second: Service;
  const closing: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    first = await startSwitchableService();
    second = await startSwitchableService();
  });
  afterAll(async () => {
    for (const each of closing.reverse()) await each.close().catch(() => undefined);
    await first?.close();
    await second?.close();
  });

  describe.skipIf(unavailable !== undefined)('on one Redis', () => {
    const namespace = uniqueNamespace('circuit-keys');
    afterAll(async () => {
      if (unavailable === undefined) await deleteNamespace(namespace);
    });

    it('makes no Redis call for an ordinary call: successes, and failures below the threshold, stay in process', async () => {
      const store = createRedisStore({ url: redisUrl, namespace });
      const circuits = createRedisCircuits({ store });
      closing.push(store, circuits);
      // Every call the breakers make to the shared circuits, counted on the way through to Redis.
      const calls: string[] = [];
      const count = <T>(name: string, result: T): T => {
        calls.push(name);
        return result;
      };
      const counted: SharedCircuitsV1 = {
        follow: (...args) => circuits.follow(...args),
        markOpen: (...args) => count('markOpen', circuits.markOpen(...args)),
        claimProbe: (...args) => count('claimProbe', circuits.claimProbe(...args)),
        markClosed: (...args) => count('markClosed', circuits.markClosed(...args)),
      };
      const provider = withFailover(
        [postingPhoneProvider('first', first.url, 500), postingPhoneProvider('second', second.url, 500)],
        { name: 'counted', breaker: { threshold: 2, shared: counted } },
      );
      await circuits.subscribed('counted');
      first.set('ok');
      for (let index = 0; index < 100; index += 1) {
        // One outage between successes: consecutive failures never reach the threshold.
        if (index % 10 === 0) first.set('5xx');
        expect(await send(provider)).toBe(index % 10 === 0 ? 'second' : 'first');
        first.set('ok');
      }
      expect(calls).toEqual([]);
    });

    it('keeps an open circuit in one key of the namespace, in Redis time, and deletes it when it closes', async () => {
      const store = createRedisStore({ url: redisUrl, namespace });
      const circuits = createRedisCircuits({ store });
      closing.push(store, circuits);
      const { provider, changes } = instance(circuits, first, second, 400);
      await circuits.subscribed('failover');
      first.set('5xx');
      expect([await send(provider), await send(provider)]).toEqual(['second', 'second']);
      await waitUntil(() => changes.length > 0, 2000);
      const key = `${namespace}::circuit:failover:first`;
      expect(circuits.keyOf('failover', 'first')).toBe(key);
      expect(circuits.channelOf('failover')).toBe(`${namespace}::circuits:failover`);
      const client = createClient({ url: redisUrl });
      await client.connect();
      try {
        const stored = JSON.parse((await client.get(key))!) as { openUntil: number; probeUntil: number };
        expect(stored.probeUntil).toBe(0);
        expect(stored.openUntil).toBeGreaterThan(0);
        // Kept a day past its probe time at most, then forgotten (closed).
        expect(await client.pTTL(key)).toBeGreaterThan(86_000_000);
        first.set('ok');
        await new Promise((resolve) => setTimeout(resolve, 450));
        expect(await send(provider)).toBe('first');
        expect(await waitUntil(async () => (await client.exists(key)) === 0, 2000)).toBe(true);
      } finally {
        client.destroy();
      }
      // The close is told when the script's answer comes back, which can be after another client sees the key gone. The
      // open's message can reach the subscriber before the open's answer: the breaker holds it until the answer shows
      // it is its own (decision 1840), so the open is told once, as local.
      await expect
        .poll(() => changes.map(({ state, origin }) => `${state}:${origin}`))
        .toEqual(['open:local', 'half-open:local', 'closed:local']);
    });
  });

  describe.skipIf(noServer !== undefined)('when Redis goes away', () => {
    let redis: PrivateRedis;
    let store: RedisFlowStore;
    beforeAll(async () => {
      redis = await PrivateRedis.start();
    });
    afterAll(async () => {
      await store?.disconnect();
      await redis?.dispose();
    });

    it('each instance goes on with its own breaker, and warns once', async () => {
      store = createRedisStore({ url: redis.url, namespace: uniqueNamespace('circuit-outage') });
      const circuits = createRedisCircuits({ store, timeoutMs: 300 });
      closing.push(circuits);
      const { provider, changes } = instance(circuits, first, second, 300);
      await circuits.subscribed('failover');
      await redis.stop();
      warnings.length = 0;
      first.set('5xx');
      const before = first.received.length;
      expect([await send(provider), await send(provider)]).toEqual(['second', 'second']);
      expect(await waitUntil(() => changes.length > 0, 2000)).toBe(true);
      expect(changes[0]).toMatchObject({ member: 'first', state: 'open', origin: 'local' });
      // Open in this process: no request to the first member.
      expect(await send(provider)).toBe('second');
      expect(first.received.length).toBe(before + 2);
      // The probe is claimed in this process alone, and closes the circuit.
      first.set('ok');
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(await send(provider)).toBe('first');
      expect(await waitUntil(() => changes.at(-1)?.state === 'closed', 2000)).toBe(true);
      expect(warnings.filter((line) => line.message === 'verikit.failover.shared-unavailable')).toEqual([
        { message: 'verikit.failover.shared-unavailable', fields: { member: 'first', error: 'store_unavailable' } },
      ]);
    });
  });

  describe.skipIf(noCluster !== undefined)('on Redis Cluster', () => {
    const namespace = uniqueNamespace('circuit-cluster');
    afterAll(async () => {
      if (noCluster === undefined) await deleteClusterNamespace(clusterUrls, namespace);
    });

    it('an open reaches the other instance, one probe is claimed, and the close reaches it too (sharded pub/sub)', async () => {
      const made = [0, 1].map(() => {
        const store = createRedisClusterStore({ urls: clusterUrls, namespace });
        const circuits = createRedisCircuits({ store });
        closing.push(store, circuits);
        return { circuits, ...instance(circuits, first, second, 600) };
      });
      const [a, b] = made as [(typeof made)[0], (typeof made)[0]];
      await Promise.all(made.map(({ circuits }) => circuits.subscribed('failover')));
      const slots = await Promise.all([
        slotOf(clusterUrls[0]!, a.circuits.keyOf('failover', 'first')),
        slotOf(clusterUrls[0]!, a.circuits.keyOf('failover', 'second')),
      ]);
      expect(slots.every((slot) => slot >= 0 && slot < 16_384)).toBe(true);
      first.set('5xx');
      expect([await send(a.provider), await send(a.provider)]).toEqual(['second', 'second']);
      expect(await waitUntil(() => b.changes.some((change) => change.state === 'open'), 5000)).toBe(true);
      const reached = first.received.length;
      expect(await send(b.provider)).toBe('second');
      expect(first.received).toHaveLength(reached);
      first.set('ok');
      await new Promise((resolve) => setTimeout(resolve, 700));
      const outcomes = await Promise.all([send(a.provider), send(b.provider), send(a.provider), send(b.provider)]);
      expect(outcomes.filter((outcome) => outcome === 'first')).toHaveLength(1);
      expect(first.received).toHaveLength(reached + 1);
      expect(
        await waitUntil(() => a.changes.at(-1)?.state === 'closed' && b.changes.at(-1)?.state === 'closed', 5000),
      ).toBe(true);
      expect(
        [...a.changes, ...b.changes]
          .filter((change) => change.origin === 'local')
          .map((c) => c.state)
          .sort(),
      ).toEqual(['closed', 'half-open', 'open']);
    });
  });
});
