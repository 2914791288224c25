import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import { createVerikit, StoreError, type FlowView, type Logger } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { createRedisChangeBus } from './redis-change-bus.js';
import { redisInstanceSuite } from './redis-bus.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStoreClient } from './redis-flow-store.js';
import { freePort, PrivateRedis, redisSkipReason, redisUrl } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis change bus');
const secret = 'redis-bus-test-secret-0123456789abcdefgh';

let numberSeed = Math.floor(Math.random() * 40_000_000);
function freshPhoneNumber(): string {
  numberSeed += 1;
  return `+234806${String(numberSeed % 10_000_000).padStart(7, '0')}`;
}

/** Collects views and resolves `until(predicate)` once one matches (the test's timeout bounds the wait). */
function collector() {
  const views: FlowView[] = [];
  const waiters: Array<{ predicate: (view: FlowView) => boolean; resolve: (view: FlowView) => void }> = [];
  const listener = (view: FlowView) => {
    views.push(view);
    for (const waiter of [...waiters]) {
      if (waiter.predicate(view)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(view);
      }
    }
  };
  const until = (predicate: (view: FlowView) => boolean) =>
    new Promise<FlowView>((resolve) => {
      const seen = views.find(predicate);
      if (seen) resolve(seen);
      else waiters.push({ predicate, resolve });
    });
  return { views, listener, until };
}

function recordingLogger(): { logger: Logger; messages: string[] } {
  const messages: string[] = [];
  const at = (message: string) => void messages.push(message);
  return { logger: { debug: at, info: at, warn: at, error: at }, messages };
}

describe.skipIf(skipReason !== undefined)('RedisChangeBus across instances', () => {
  const { namespace, stores, buses, engines, raw } = redisInstanceSuite('bus');

  /** One app instance: its own connections, its own bus, the shared Redis. */
  function instance(logger?: Logger, clock?: { now(): number }) {
    const provider = createTestProviderV1();
    const store = createRedisStore({ url: redisUrl, namespace });
    const changeBus = createRedisChangeBus({ store, ...(logger ? { logger } : {}) });
    stores.push(store);
    buses.push(changeBus);
    const verikit = createVerikit({ provider, store, changeBus, secret, ...(clock ? { clock } : {}) });
    engines.push(verikit);
    provider.onEvent((event) => verikit.receive({ id: randomUUID(), event }));
    return { provider, store, changeBus, verikit };
  }

  it('delivers a change committed on instance A to a subscriber on instance B', async () => {
    // Both engines' clocks stand still at one instant, so the published view and one read later carry the same serverTime.
    const at = Date.now();
    const clock = { now: () => at };
    const a = instance(undefined, clock);
    const b = instance(undefined, clock);
    const phoneNumber = freshPhoneNumber();
    const flow = await a.verikit.start({ kind: 'ussd', phoneNumber });
    expect(flow.status).toBe('awaiting-dial');
    const seen = collector();
    b.verikit.subscribe(flow.id, seen.listener);
    await b.changeBus.subscribed(flow.id);
    await a.provider.completeUssd(phoneNumber, 'success');
    const verified = await seen.until((view) => view.status === 'verified');
    expect(verified).toMatchObject({
      id: flow.id,
      kind: 'ussd',
      status: 'verified',
      done: true,
      version: flow.version + 1,
    });
    expect(verified).toEqual(await b.verikit.get(flow.id));
    expect(Object.isFrozen(verified)).toBe(true);
  });

  it("a USSD start on instance B ends the number's flow started on A (decision 1280); A's subscriber sees it", async () => {
    const a = instance();
    const b = instance();
    const phoneNumber = freshPhoneNumber();
    const older = await a.verikit.start({ kind: 'ussd', phoneNumber }, { owner: 'browser-a' });
    const seen = collector();
    a.verikit.subscribe(older.id, seen.listener);
    await a.changeBus.subscribed(older.id);
    const newer = await b.verikit.start({ kind: 'ussd', phoneNumber }, { owner: 'browser-b' });
    expect(newer.id).not.toBe(older.id);
    const ended = await seen.until((view) => view.status === 'failed');
    expect(ended).toMatchObject({ error: { code: 'superseded', messageId: 'verikit.error.superseded' } });
    expect([ended.otp, ended.ussdCode]).toEqual([undefined, undefined]);
    await b.provider.completeUssd(phoneNumber, 'success');
    expect((await a.verikit.get(newer.id)).status).toBe('verified');
    expect((await b.verikit.get(older.id)).status).toBe('failed');
  });

  it('reaches every instance, and each listener sees each version once, in order', async () => {
    const a = instance();
    const b = instance();
    const c = instance();
    const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
    const onA = collector();
    const onB = collector();
    const onC = collector();
    a.verikit.subscribe(flow.id, onA.listener);
    b.verikit.subscribe(flow.id, onB.listener);
    c.verikit.subscribe(flow.id, onC.listener);
    await Promise.all([
      a.changeBus.subscribed(flow.id),
      b.changeBus.subscribed(flow.id),
      c.changeBus.subscribed(flow.id),
    ]);
    // Two changes each from B and C, then the right code from A: 6 commits in all.
    await b.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    await c.verikit.send(flow.id, { type: 'submit-code', code: '111111' });
    const done = await a.verikit.send(flow.id, { type: 'submit-code', code: '123456' });
    expect(done.status).toBe('verified');
    for (const seen of [onA, onB, onC]) {
      await seen.until((view) => view.version === done.version);
      const versions = seen.views.map((view) => view.version);
      expect(versions).toEqual([...new Set(versions)].sort((x, y) => x - y));
      expect(versions.at(-1)).toBe(done.version);
      expect(versions).toEqual(
        Array.from({ length: done.version - flow.version }, (_, index) => flow.version + 1 + index),
      );
    }
  });

  it('subscribes to a flow channel lazily and unsubscribes when the last listener leaves', async () => {
    const b = instance();
    const channel = b.changeBus.channelOf('lazy-flow');
    const subscribers = async () => ((await raw().pubSubNumSub(channel)) as Record<string, number>)[channel] ?? 0;
    expect(await subscribers()).toBe(0);
    const first = b.changeBus.subscribe('lazy-flow', () => {});
    const second = b.changeBus.subscribe('lazy-flow', () => {});
    await b.changeBus.subscribed('lazy-flow');
    expect(await subscribers()).toBe(1);
    first();
    first();
    // One listener is left: the channel stays subscribed (nothing was sent to Redis).
    expect(await subscribers()).toBe(1);
    second();
    // The UNSUBSCRIBE goes out asynchronously: wait for Redis to see it, a bounded number of times.
    for (let attempt = 0; attempt < 200 && (await subscribers()) !== 0; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await subscribers()).toBe(0);
    // Subscribing again after the last listener left subscribes again.
    const third = b.changeBus.subscribe('lazy-flow', () => {});
    await b.changeBus.subscribed('lazy-flow');
    expect(await subscribers()).toBe(1);
    third();
  });

  it('keeps delivering when a listener throws, and ignores foreign messages on its channels', async () => {
    const { logger, messages } = recordingLogger();
    const a = instance();
    const b = instance(logger);
    const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
    const seen = collector();
    b.verikit.subscribe(flow.id, () => {
      throw new Error('listener failed');
    });
    b.verikit.subscribe(flow.id, seen.listener);
    await b.changeBus.subscribed(flow.id);
    const channel = b.changeBus.channelOf(flow.id);
    await raw().publish(channel, 'not json');
    await raw().publish(channel, JSON.stringify({ id: 'another-flow', version: 99 }));
    const next = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    await seen.until((view) => view.version >= next.version);
    expect(seen.views.every((view) => view.id === flow.id)).toBe(true);
    expect(messages.filter((message) => message === 'verikit.redis.message.invalid')).toHaveLength(2);
    expect(messages).toContain('verikit.listener.failed');
  });
});

describe('RedisChangeBus when Redis is unreachable', () => {
  it('rejects subscribed() with a StoreError once subscribeTimeoutMs passes, and still closes', async () => {
    const port = await freePort();
    const { logger, messages } = recordingLogger();
    const store = createRedisStore({ url: `redis://127.0.0.1:${port}`, namespace: 'unreachable-bus' });
    const bus = createRedisChangeBus({ store, logger, subscribeTimeoutMs: 150 });
    try {
      bus.subscribe('flow-1', () => {});
      const outcome = await Promise.race([
        bus.subscribed('flow-1').then(
          () => 'resolved',
          (error: unknown) => error,
        ),
        new Promise((resolve) => setTimeout(() => resolve('no answer after 2 s'), 2000)),
      ]);
      expect(StoreError.isInstance(outcome), String(outcome)).toBe(true);
      expect((outcome as StoreError).isRetryable).toBe(true);
      expect((outcome as StoreError).message).toContain('within 150 ms');
      // Each call gets its own deadline; the SUBSCRIBE itself stays queued for when Redis returns.
      await expect(bus.subscribed('flow-1')).rejects.toSatisfy((error: unknown) => StoreError.isInstance(error));
      expect(messages).toContain('verikit.redis.subscriber.error');
    } finally {
      await Promise.race([
        bus.close(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('close() hung')), 2000)),
      ]);
      await store.disconnect();
    }
  });
});

describe.skipIf(skipReason !== undefined)('RedisChangeBus when Redis comes up after the subscription', () => {
  it('subscribes what was asked while Redis was down once it is up, and delivers', async () => {
    const redis = await PrivateRedis.start();
    await redis.stop();
    const store = createRedisStore({ url: redis.url, namespace: 'late-redis' });
    const bus = createRedisChangeBus({ store, subscribeTimeoutMs: 150 });
    const seen: FlowView[] = [];
    try {
      bus.subscribe('flow-1', (view) => seen.push(view));
      await expect(bus.subscribed('flow-1')).rejects.toSatisfy((error: unknown) => StoreError.isInstance(error));
      await redis.start();
      // Retried by the bus: no new subscribe call.
      let live = false;
      for (let attempt = 0; attempt < 100 && !live; attempt += 1)
        live = await bus.subscribed('flow-1').then(
          () => true,
          () => false,
        );
      expect(live).toBe(true);
      const raw = createClient({ url: redis.url });
      await raw.connect();
      await raw.publish(bus.channelOf('flow-1'), JSON.stringify({ id: 'flow-1', version: 3 }));
      raw.destroy();
      for (let attempt = 0; attempt < 200 && seen.length === 0; attempt += 1)
        await new Promise((resolve) => setTimeout(resolve, 5));
      expect(seen.map((view) => view.version)).toEqual([3]);
    } finally {
      await bus.close();
      await store.disconnect();
      await redis.dispose();
    }
  });
});

describe('RedisChangeBus logging', () => {
  it('logs a driver error by class and code only, never its message (it can hold the Redis URL and password)', async () => {
    const logged: Array<Record<string, unknown> | undefined> = [];
    const at = (_message: string, fields?: Record<string, unknown>) => void logged.push(fields);
    const failure = Object.assign(new Error('connect to redis://default:hunter2-pass@redis.internal:6379 failed'), {
      code: 'ECONNREFUSED',
    });
    const publisher = { publish: () => Promise.reject(failure) } as unknown as RedisFlowStoreClient;
    // A subscriber connection that is up, and reports a driver error on its 'error' event.
    const handlers = new Map<string, (...args: unknown[]) => void>();
    const subscriber = {
      isOpen: true,
      isReady: true,
      on: (event: string, handler: (...args: unknown[]) => void) => void handlers.set(event, handler),
      subscribe: () => Promise.resolve(),
      unsubscribe: () => Promise.resolve(),
      close: () => Promise.resolve(),
      destroy: () => {},
    } as unknown as RedisFlowStoreClient;
    const bus = createRedisChangeBus({ publisher, subscriber, logger: { debug: at, info: at, warn: at, error: at } });
    bus.subscribe('flow-1', () => {
      throw new TypeError('listener saw secret 482913');
    });
    await bus.subscribed('flow-1');
    handlers.get('error')?.(failure);
    bus.publish({ id: 'flow-1', version: 1 } as unknown as FlowView);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await bus.close();
    expect(logged).toHaveLength(3);
    const text = JSON.stringify(logged);
    expect(logged.map((fields) => fields?.['error'])).toEqual(
      expect.arrayContaining(['Error (ECONNREFUSED)', 'TypeError']),
    );
    for (const hidden of ['hunter2-pass', 'redis.internal', '482913']) expect(text).not.toContain(hidden);
  });
});
