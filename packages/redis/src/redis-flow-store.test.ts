import KeyvRedis, { createClient } from '@keyv/redis';
import {
  createVerikit,
  EventNotAllowedError,
  RecordSchemaError,
  recordSchemaVersion,
  type FlowRecord,
  type FlowStore,
} from '@verikit/core';
import { InvalidInputError } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore } from './create-redis-store.js';
import { RedisFlowStore } from './redis-flow-store.js';
import { commandsOf, usePrivateStore } from './counted-commands.fixtures.js';
import {
  deleteNamespace,
  redisServerSkipReason,
  redisSkipReason,
  redisUrl,
  uniqueNamespace,
} from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis store');
const serverMissing = await redisServerSkipReason('@verikit/redis store, counted by a server of its own');
const secret = 'redis-store-test-secret-0123456789abcdef';

function record(id: string, version: number, extra: Record<string, unknown> = {}): FlowRecord {
  return {
    schemaVersion: recordSchemaVersion,
    id,
    kind: 'phone',
    version,
    value: 'awaiting-code',
    context: { flowId: id, effectSeq: 1, sendCount: 1, attemptsLeft: 5, ...extra },
    createdAt: 1_767_225_600_000,
    updatedAt: 1_767_225_600_000 + version,
  };
}

/** A phone number no other test uses: +23480 then 8 digits. */
let numberSeed = Math.floor(Math.random() * 40_000_000);
function freshPhoneNumber(): string {
  numberSeed += 1;
  return `+234803${String(numberSeed % 10_000_000).padStart(7, '0')}`;
}

describe.skipIf(skipReason !== undefined)('RedisFlowStore on a real Redis', () => {
  const namespace = uniqueNamespace('store');
  let store: RedisFlowStore;
  let raw: ReturnType<typeof createClient>;

  beforeAll(async () => {
    store = createRedisStore({ url: redisUrl, namespace });
    await store.connect();
    raw = createClient({ url: redisUrl });
    await raw.connect();
  });

  afterAll(async () => {
    await store?.close();
    raw?.destroy();
    await deleteNamespace(namespace);
  });

  describe('compare-and-set', () => {
    it('creates only when no record exists, then writes only on the expected version', async () => {
      const id = 'cas-basic';
      expect(await store.compareAndSetFlow(record(id, 1), 0, 60_000)).toBe(true);
      expect(await store.compareAndSetFlow(record(id, 1, { other: true }), 0, 60_000)).toBe(false);
      expect(await store.compareAndSetFlow(record(id, 2), 1, 60_000)).toBe(true);
      expect(await store.compareAndSetFlow(record(id, 3), 1, 60_000)).toBe(false);
      expect(await store.compareAndSetFlow(record(id, 3), 3, 60_000)).toBe(false);
      expect(await store.getFlow(id)).toEqual(record(id, 2));
      // A record held by an engine (decision 1430) is never written back over a key that expired or was deleted.
      expect(await store.compareAndSetFlow(record('cas-missing', 3), 2, 60_000)).toBe(false);
      expect(await store.getFlow('cas-missing')).toBeUndefined();
    });

    it('lets exactly one of many concurrent writers of the same version win', async () => {
      const id = 'cas-race';
      await store.compareAndSetFlow(record(id, 1), 0, 60_000);
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, writer) => store.compareAndSetFlow(record(id, 2, { writer }), 1, 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await store.getFlow(id))?.context).toMatchObject({ writer: winner });
    });

    it('sets the TTL in Redis and refreshes it on every write', async () => {
      const id = 'cas-ttl';
      await store.compareAndSetFlow(record(id, 1), 0, 60_000);
      const first = await raw.pTTL(store.redisKey(`flow:${id}`));
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(60_000);
      await store.compareAndSetFlow(record(id, 2), 1, 3_600_000);
      expect(await raw.pTTL(store.redisKey(`flow:${id}`))).toBeGreaterThan(60_000);
    });

    it('writes the routes given with a compare-and-set only when it wins, with its TTL (decision 2010)', async () => {
      const id = 'cas-routes';
      expect(await store.compareAndSetFlow(record(id, 1), 0, 60_000)).toBe(true);
      expect(await store.compareAndSetFlow(record(id, 3), 2, 60_000, undefined, ['delivery:message:lost'])).toBe(false);
      expect(await store.getRoute('delivery:message:lost')).toBeUndefined();
      const routes = ['delivery:message:a', 'delivery:message:b'];
      expect(await store.compareAndSetFlow(record(id, 2), 1, 30_000, undefined, routes)).toBe(true);
      for (const route of routes) {
        expect(await store.getRoute(route)).toBe(id);
        const ttl = await raw.pTTL(store.redisKey(`route:${route}`));
        expect(ttl).toBeGreaterThan(29_000);
        expect(ttl).toBeLessThanOrEqual(30_000);
      }
      expect((await store.getFlow(id))?.version).toBe(2);
    });

    it('treats an expired record as absent', async () => {
      const id = 'cas-expired';
      await store.compareAndSetFlow(record(id, 1), 0, 1);
      for (let attempt = 0; attempt < 100 && (await raw.exists(store.redisKey(`flow:${id}`))) === 1; attempt += 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(await store.getFlow(id)).toBeUndefined();
      expect(await store.compareAndSetFlow(record(id, 1), 0, 60_000)).toBe(true);
    });

    it('refuses a corrupt record with a RecordSchemaError, never as absent', async () => {
      const id = 'cas-corrupt';
      await raw.set(store.redisKey(`flow:${id}`), 'not json');
      await expect(store.getFlow(id)).rejects.toSatisfy(RecordSchemaError.isInstance);
      await expect(store.compareAndSetFlow(record(id, 1), 0, 60_000)).rejects.toSatisfy(RecordSchemaError.isInstance);
      await raw.set(store.redisKey(`flow:${id}`), JSON.stringify({ value: { id } }));
      await expect(store.compareAndSetFlow(record(id, 1), 0, 60_000)).rejects.toSatisfy(RecordSchemaError.isInstance);
    });
  });

  describe('records are Keyv records', () => {
    it('writes the bytes Keyv writes: a record set by compare-and-set is read by keyv.get', async () => {
      const id = 'keyv-read';
      const before = Date.now();
      await store.compareAndSetFlow(record(id, 1), 0, 60_000);
      expect(await store.keyv.get(`flow:${id}`)).toEqual(record(id, 1));
      const bytes = await raw.get(`${namespace}::flow:${id}`);
      const envelope = JSON.parse(bytes ?? 'null') as { value: unknown; expires: number };
      expect(Object.keys(envelope)).toEqual(['value', 'expires']);
      expect(envelope.value).toEqual(record(id, 1));
      expect(envelope.expires).toBeGreaterThanOrEqual(before + 60_000);
      expect(envelope.expires).toBeLessThanOrEqual(Date.now() + 60_000);
    });

    it('reads and compare-and-sets what keyv.set wrote', async () => {
      const id = 'keyv-write';
      await store.keyv.set(`flow:${id}`, record(id, 4), 60_000);
      expect(await store.getFlow(id)).toEqual(record(id, 4));
      expect(await store.compareAndSetFlow(record(id, 5), 3, 60_000)).toBe(false);
      expect(await store.compareAndSetFlow(record(id, 5), 4, 60_000)).toBe(true);
      expect(await store.keyv.get(`flow:${id}`)).toEqual(record(id, 5));
    });

    it('follows the key prefix of a Keyv that prefixes keys itself', async () => {
      const own = uniqueNamespace('prefixed');
      const keyv = new Keyv(new KeyvRedis(redisUrl), { namespace: own });
      const prefixed = new RedisFlowStore(keyv);
      try {
        await keyv.set('flow:p', record('p', 7), 60_000);
        expect(await prefixed.getFlow('p')).toEqual(record('p', 7));
        expect(await prefixed.compareAndSetFlow(record('p', 8), 7, 60_000)).toBe(true);
        expect(await keyv.get('flow:p')).toEqual(record('p', 8));
        await prefixed.setRoute('r', 'p', 60_000);
        expect(await keyv.get('route:r')).toBe('p');
      } finally {
        await prefixed.close();
        await deleteNamespace(own);
      }
    });

    it('keeps routes, claims and limits readable through Keyv', async () => {
      await store.setRoute('ussd:+2348030000001', 'flow-a', 60_000);
      expect(await store.getRoute('ussd:+2348030000001')).toBe('flow-a');
      expect(await store.keyv.get('route:ussd:+2348030000001')).toBe('flow-a');
      expect(await store.getRoute('ussd:unknown')).toBeUndefined();
      await store.claim('webhook:readable', 60_000);
      expect(await store.keyv.get('claim:webhook:readable')).toBe(1);
      const result = await store.consume('readable', 5, 60_000, 1_000);
      expect(await store.keyv.get('limit:readable')).toEqual({ used: 1, resetAt: result.resetAt });
    });
  });

  describe('claims', () => {
    it('claims a key once while the claim lives, and again once it expired', async () => {
      expect(await store.claim('webhook:msg_1', 60_000)).toBe(true);
      expect(await store.claim('webhook:msg_1', 60_000)).toBe(false);
      const ttl = await raw.pTTL(store.redisKey('claim:webhook:msg_1'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      expect(await store.claim('webhook:short', 1)).toBe(true);
      for (
        let attempt = 0;
        attempt < 100 && (await raw.exists(store.redisKey('claim:webhook:short'))) === 1;
        attempt += 1
      ) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(await store.claim('webhook:short', 60_000)).toBe(true);
    });

    it('gives a concurrent claim to exactly one caller', async () => {
      const results = await Promise.all(Array.from({ length: 40 }, () => store.claim('webhook:race', 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('fixed-window limits', () => {
    it('allows `limit` units per window, takes nothing when refused, and opens a new window', async () => {
      const now = 1_767_225_600_000;
      const taken = [];
      for (let index = 0; index < 5; index += 1) taken.push(await store.consume('window', 3, 60_000, now + index));
      expect(taken.map((result) => result.allowed)).toEqual([true, true, true, false, false]);
      expect(taken.map((result) => result.used)).toEqual([1, 2, 3, 3, 3]);
      expect(new Set(taken.map((result) => result.resetAt))).toEqual(new Set([now + 60_000]));
      const next = await store.consume('window', 3, 60_000, now + 60_000);
      expect(next).toEqual({ allowed: true, used: 1, resetAt: now + 120_000 });
    });

    it('never allows more than the limit under concurrency', async () => {
      const now = Date.now();
      const results = await Promise.all(Array.from({ length: 60 }, () => store.consume('concurrent', 10, 60_000, now)));
      expect(results.filter((result) => result.allowed)).toHaveLength(10);
      expect(Math.max(...results.map((result) => result.used))).toBe(10);
    });
  });

  describe('two engines sharing one Redis', () => {
    it('apply 100 parallel events to one flow with no lost update', async () => {
      const provider = createTestProviderV1();
      const second = createRedisStore({ url: redisUrl, namespace });
      const commits: Array<{ version: number; expected: number }> = [];
      const counted = (inner: FlowStore): FlowStore => ({
        getFlow: (id) => inner.getFlow(id),
        async compareAndSetFlow(next, expected, ttl) {
          const written = await inner.compareAndSetFlow(next, expected, ttl);
          if (written) commits.push({ version: next.version, expected });
          return written;
        },
        getRoute: (key) => inner.getRoute(key),
        setRoute: (key, flowId, ttl) => inner.setRoute(key, flowId, ttl),
        claim: (key, ttl) => inner.claim(key, ttl),
        consume: (key, limit, windowMs, now) => inner.consume(key, limit, windowMs, now),
      });
      const policies = { maxAttempts: 100 };
      const engineA = createVerikit({ provider, store: counted(store), secret, policies });
      const engineB = createVerikit({ provider, store: counted(second), secret, policies });
      try {
        const flow = await engineA.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
        expect(flow.status).toBe('awaiting-code');
        // 100 wrong codes, half through each engine, all at once. A submit made while another is
        // being checked is refused; each one retries until accepted, so every one is applied once.
        let refusals = 0;
        const submit = async (index: number) => {
          const engine = index % 2 === 0 ? engineA : engineB;
          for (let attempt = 0; attempt < 2000; attempt += 1) {
            try {
              return await engine.send(flow.id, { type: 'submit-code', code: '000000' });
            } catch (error) {
              if (!EventNotAllowedError.isInstance(error)) throw error;
              refusals += 1;
              await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
            }
          }
          throw new Error('a submit was never accepted');
        };
        await Promise.all(Array.from({ length: 100 }, (_, index) => submit(index)));
        const final = await engineB.get(flow.id);
        expect(final.status).toBe('locked');
        expect(provider.callsOf('phone.check')).toHaveLength(100);
        // created (1) + code sent (1) + 100 × (submitted, checked)
        expect(final.version).toBe(202);
        const versions = commits.map((commit) => commit.version).sort((a, b) => a - b);
        expect(versions).toEqual(Array.from({ length: 202 }, (_, index) => index + 1));
        expect(commits.every((commit) => commit.version === commit.expected + 1)).toBe(true);
        expect(refusals).toBeGreaterThan(0);
        const stored = await store.keyv.get<FlowRecord>(`flow:${flow.id}`);
        expect(stored?.version).toBe(202);
        expect(stored?.context.attemptsLeft).toBe(0);
      } finally {
        await second.close();
      }
    });
  });
});

describe('createRedisStore refuses a URL node-redis cannot use', () => {
  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['no scheme', { url: 'user:hunter2@127.0.0.1:6379' }, 'url', /has no scheme: write it as redis:\/\/host:6379/],
    ['a host alone', { url: 'localhost' }, 'url', /has no scheme/],
    [
      'another scheme',
      { url: 'http://user:hunter2@127.0.0.1:6379' },
      'url',
      /must start with redis:\/\/ or rediss:\/\//,
    ],
    ['a number', { url: 6379 }, 'url', /must be a string/],
    ['no scheme in client.url', { client: { url: '127.0.0.1:6379' } }, 'client.url', /has no scheme/],
  ])('%s: an InvalidInputError naming the option, never echoing the value', (_label, options, field, message) => {
    let error: unknown;
    try {
      createRedisStore(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidInputError.isInstance(error), String(error)).toBe(true);
    expect((error as InvalidInputError).field).toBe(field);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('accepts redis:// and rediss:// without connecting', async () => {
    for (const url of ['redis://127.0.0.1:1', 'rediss://user:pass@127.0.0.1:1/2']) {
      const store = createRedisStore({ url });
      await store.disconnect();
    }
  });
});

describe.skipIf(serverMissing !== undefined)('what a new record and a new count cost Redis (decision 1716)', () => {
  const privateStore = usePrivateStore('costs');

  it("a new record is one SET NX, no script; a number's first count is one SET in the script", async () => {
    const store = await privateStore();
    // Scripts loaded, connection made: what follows is counted alone.
    await store.compareAndSetFlow(record('warm', 1), 0, 60_000);
    await store.compareAndSetFlow(record('warm', 2), 1, 60_000);
    await store.consume('warm', 5, 60_000, Date.now());
    expect(await commandsOf(store, () => store.compareAndSetFlow(record('new', 1), 0, 60_000))).toEqual({ set: 1 });
    expect(await store.getFlow('new')).toEqual(record('new', 1));
    // Taken: no write, and the record is read (a corrupt one is an error, never absent).
    expect(await store.compareAndSetFlow(record('new', 1), 0, 60_000)).toBe(false);
    expect(await store.getFlow('new')).toEqual(record('new', 1));
    expect(await commandsOf(store, () => store.consume('number', 5, 60_000, Date.now()))).toEqual({
      evalsha: 1,
      set: 1,
    });
    const second = await store.consume('number', 5, 60_000, Date.now());
    expect([second.allowed, second.used]).toEqual([true, 2]);
    expect(await store.keyv.get('limit:number')).toMatchObject({ used: 2 });
  });
});
