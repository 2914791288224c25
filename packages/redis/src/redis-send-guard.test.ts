import { createVerikit, InvalidInputError, RateLimitedError, StoreError, type SendGuardOptions } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace, mastersOf, onNode } from './redis-cluster.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { createRedisSendGuard } from './redis-send-guard.js';
import { commandsOf, usePrivateStore } from './counted-commands.fixtures.js';
import {
  deleteNamespace,
  freePort,
  redisServerSkipReason,
  redisSkipReason,
  redisUrl,
  uniqueNamespace,
} from './redis-test-env.fixtures.js';
import type { GuardWorkerPlan, GuardWorkerReport } from './send-guard-worker.fixtures.js';
import { useWorkerProcesses } from './worker-processes.fixtures.js';

const secret = 'send-guard-secret-0123456789-abcdefghijkl';
/** 300 consecutive valid numbers in one block of 1,000. */
const numbers = Array.from({ length: 300 }, (_, index) => `+${2348012340000 + index}`);

/** Every key name under the namespace, on one Redis or on every master of the cluster. */
async function keysOf(target: 'redis' | 'cluster', namespace: string): Promise<string[]> {
  const urls = target === 'redis' ? [redisUrl] : (await mastersOf(clusterUrls[0]!)).map((master) => master.url);
  const keys: string[] = [];
  for (const url of urls) {
    await onNode(url, async (client) => {
      for await (const batch of client.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 })) keys.push(...batch);
    });
  }
  return keys;
}

const targets = [
  {
    name: 'one Redis',
    target: 'redis' as const,
    skipReason: await redisSkipReason('@verikit/redis send guard'),
    plan: { url: redisUrl },
  },
  {
    name: 'Redis Cluster',
    target: 'cluster' as const,
    skipReason: await clusterSkipReason('@verikit/redis send guard on Redis Cluster'),
    plan: { url: clusterUrls[0] ?? '', clusterUrls },
  },
];

describe.each(targets)(
  'the send guard shared by three processes on $name: 300 consecutive numbers',
  ({ target, skipReason, plan }) => {
    if (skipReason !== undefined) {
      it.skip(`skipped: ${skipReason}`, () => {});
      return;
    }
    const workers = useWorkerProcesses<GuardWorkerReport>('send-guard-worker.fixtures.ts', 3);
    /** Three processes start 100 of the 300 numbers each, all at once; their reports. */
    const threeProcesses = (plan: Omit<GuardWorkerPlan, 'numbers'>) =>
      workers((index) => ({ ...plan, numbers: numbers.slice(index * 100, index * 100 + 100) }));
    const namespaces: string[] = [];
    const fresh = () => {
      const namespace = uniqueNamespace('guard');
      namespaces.push(namespace);
      return namespace;
    };
    afterAll(async () => {
      for (const namespace of namespaces)
        await (target === 'redis' ? deleteNamespace(namespace) : deleteClusterNamespace(clusterUrls, namespace));
    });

    async function run(guard: SendGuardOptions, client: GuardWorkerPlan['client']) {
      const namespace = fresh();
      const reports = await threeProcesses({ ...plan, namespace, secret, guard, client });
      for (const report of reports) {
        expect(report.other).toEqual([]);
        expect(report.badRetry).toBe(0);
      }
      const total = (field: 'sent' | 'admitted' | 'refused') => reports.reduce((sum, report) => sum + report[field], 0);
      return { namespace, sent: total('sent'), admitted: total('admitted'), refused: total('refused') };
    }

    it("one client: exactly the per-client limit is sent in total, by the flow store's own counts", async () => {
      const { sent, admitted, refused } = await run(
        { perClient: { points: 20 }, perPrefix: false, global: false },
        'attacker',
      );
      expect(sent).toBe(20);
      expect(admitted).toBe(20);
      expect(refused).toBe(280);
    });

    it('a client per start: exactly the global budget is sent in total', async () => {
      const { sent, refused } = await run({ perClient: false, perPrefix: false, global: { points: 25 } }, 'each');
      expect(sent).toBe(25);
      expect(refused).toBe(275);
    });

    it('the defaults: 10 sent in total; no guard key name holds a number, a prefix or a client', async () => {
      const { namespace, sent } = await run({}, 'attacker');
      expect(sent).toBe(10);
      const keys = await keysOf(target, namespace);
      const guardKeys = keys.filter((key) => key.startsWith(`${namespace}::guard:`));
      // per-client and global counts, and the per-prefix count of the one block of 1,000; on a cluster the global
      // budget is spread over up to 16 keys, one per sixteenth of the slot space.
      const globalKeys = guardKeys.filter((key) => key.startsWith(`${namespace}::guard:global:`));
      expect(guardKeys.length - globalKeys.length).toBe(2);
      expect(globalKeys.length).toBe(target === 'redis' ? 1 : globalKeys.length);
      expect(globalKeys.length).toBeLessThanOrEqual(16);
      for (const key of guardKeys) {
        expect(key).toMatch(
          new RegExp(`^${namespace}::guard:(per-client|per-prefix|global):([0-9a-f]{32}|all|all:\\{g\\d+\\.\\d+\\})$`),
        );
        expect(key).not.toContain('8012340');
        expect(key).not.toContain('attacker');
      }
      // The flows' own keys: what the per-number limit is named by is another change's (key hashing).
      expect(keys.every((key) => /::(flow|route|limit|guard):/.test(key))).toBe(true);
    });
  },
);

const oneProcessSkipReason = await redisSkipReason('@verikit/redis send guard (one process)');
const serverMissing = await redisServerSkipReason('@verikit/redis send guard, counted by a server of its own');

describe.skipIf(serverMissing !== undefined)('the counts of one send on one node (decision 1715)', () => {
  const privateStore = usePrivateStore('guard-counts');

  it('are one script run, all or none, on the units the limiters count and give back', async () => {
    const store = await privateStore();
    const guard = store.sendGuardStore();
    expect(guard.consumeAll).toBeTypeOf('function');
    const spec = (name: 'per-client' | 'per-prefix' | 'global', points: number) => ({
      name,
      keyPrefix: `guard:${name}`,
      points,
      durationSeconds: 600,
    });
    const [client, prefix, global] = [spec('per-client', 2), spec('per-prefix', 5), spec('global', 100)];
    const counts = (who: string) => [
      { spec: client, key: who, points: 1, shared: false },
      { spec: prefix, key: 'p1', points: 1, shared: false },
      { spec: global, key: 'all', points: 1, shared: true },
    ];
    const counted = (name: string, key: string) => store.client.get(store.redisKey(`guard:${name}:${key}`));
    expect(await guard.consumeAll!(counts('a'), {})).toBeUndefined();
    // A send of another client: its own key is new, the prefix's and the global one are not.
    let taken: unknown;
    // SET NX of b's new key; SET NX (refused) then INCRBY of the prefix's; INCRBY of the global one.
    expect(await commandsOf(store, async () => (taken = await guard.consumeAll!(counts('b'), {})))).toEqual({
      evalsha: 1,
      set: 2,
      incrby: 2,
    });
    expect(taken).toBeUndefined();
    expect(await counted('per-prefix', 'p1')).toBe('2');

    // a's second send passes; the third is refused by a's own limit and takes nothing anywhere.
    expect(await guard.consumeAll!(counts('a'), {})).toBeUndefined();
    const refused = await guard.consumeAll!(counts('a'), {});
    expect(refused?.index).toBe(0);
    expect(refused?.msBeforeNext).toBeGreaterThan(0);
    expect(refused?.msBeforeNext).toBeLessThanOrEqual(600_000);
    expect([
      await counted('per-client', 'a'),
      await counted('per-prefix', 'p1'),
      await counted('global', 'all'),
    ]).toEqual(['2', '3', '3']);
    // The limiters count on the same units: one given back lets a's next send through.
    await guard.limiter(client).reward('a', 1);
    expect(await guard.consumeAll!(counts('a'), {})).toBeUndefined();
    await expect(guard.limiter(client).consume('a', 1)).rejects.toMatchObject({ msBeforeNext: expect.any(Number) });
    expect(await counted('per-client', 'a')).toBe('2');
    // A shared key made by the script has its window too.
    expect(await store.client.pTTL(store.redisKey('guard:global:all'))).toBeGreaterThan(0);
  });
});

describe('createRedisSendGuard', () => {
  const stores: RedisFlowStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.disconnect();
  });

  it.skipIf(oneProcessSkipReason !== undefined)(
    'counts where it is told, and a Redis that is down is a StoreError: nothing sent',
    async () => {
      const down = createRedisStore({ url: `redis://127.0.0.1:${await freePort()}`, connectTimeoutMs: 200 });
      stores.push(down);
      const provider = createTestProviderV1();
      const verikit = createVerikit({ provider, secret, guard: { store: createRedisSendGuard({ store: down }) } });
      const error = await verikit
        .start({ kind: 'phone', phoneNumber: numbers[0]! }, { client: 'c1' })
        .catch((caught: unknown) => caught);
      expect(StoreError.isInstance(error)).toBe(true);
      expect(provider.calls).toHaveLength(0);

      const namespace = uniqueNamespace('guard-own');
      const counts = createRedisStore({ url: redisUrl, namespace });
      stores.push(counts);
      const engines = [0, 1].map(() =>
        createVerikit({
          provider,
          secret,
          guard: { store: createRedisSendGuard({ store: counts }), perClient: { points: 1 } },
        }),
      );
      await engines[0]!.start({ kind: 'phone', phoneNumber: numbers[1]! }, { client: 'c1' });
      await expect(engines[1]!.start({ kind: 'phone', phoneNumber: numbers[2]! }, { client: 'c1' })).rejects.toSatisfy(
        RateLimitedError.isInstance,
      );
      await deleteNamespace(namespace);
    },
  );

  it.skipIf(oneProcessSkipReason !== undefined)(
    'a start refused on Redis consumes nothing: 10 presses (5 sent) and 12 addresses (5 sent) leave the block free',
    async () => {
      const namespace = uniqueNamespace('guard-refused');
      const store = createRedisStore({ url: redisUrl, namespace });
      stores.push(store);
      const provider = createTestProviderV1();
      const verikit = createVerikit({
        provider,
        store,
        secret,
        guard: { perClient: { points: 10 }, perPrefix: { points: 10 }, global: { points: 20 } },
      });
      const start = (phoneNumber: string, client: string) =>
        verikit.start({ kind: 'phone', phoneNumber }, { client }).then(
          () => 'sent',
          (error: unknown) => (RateLimitedError.isInstance(error) ? 'refused' : error),
        );
      // Ten presses on one's own number: 5 sent, 5 refused by the number's own limit.
      const presses: unknown[] = [];
      for (let press = 0; press < 10; press += 1) presses.push(await start(numbers[0]!, 'me'));
      expect(presses).toEqual([...Array(5).fill('sent'), ...Array(5).fill('refused')]);
      // Twelve addresses for another number of the block: 5 sent, 7 refused.
      const twelve = await Promise.all(Array.from({ length: 12 }, (_, index) => start(numbers[1]!, `a${index}`)));
      expect(twelve.filter((outcome) => outcome === 'sent')).toHaveLength(5);
      expect(twelve.filter((outcome) => outcome === 'refused')).toHaveLength(7);
      // The prefix (10) and the global budget (20) hold only the 10 sent: the block is full, other blocks are not.
      expect(await start(numbers[2]!, 'someone')).toBe('refused');
      expect(await start('+2348012350000', 'me')).toBe('sent');
      expect(provider.callsOf('phone.send')).toHaveLength(11);
      await deleteNamespace(namespace);
    },
  );

  it.each<[string, unknown, string]>([
    ['no options', undefined, 'store'],
    ['no store', {}, 'store'],
    ['a store that is a URL', { store: 'redis://127.0.0.1:6379' }, 'store'],
    [
      'a negative timeout',
      { store: createRedisStore({ namespace: 'unused' }), commandTimeoutMs: -1 },
      'commandTimeoutMs',
    ],
    [
      'a timeout that is a string',
      { store: createRedisStore({ namespace: 'unused' }), commandTimeoutMs: '5s' },
      'commandTimeoutMs',
    ],
  ])('%s is an InvalidInputError naming the option', (_label, options, field) => {
    let error: unknown;
    try {
      createRedisSendGuard(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect((error as InvalidInputError).field).toBe(field);
  });
});
