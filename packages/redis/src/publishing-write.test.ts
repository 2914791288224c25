import { createVerikit, EventNotAllowedError, type FlowRecord, type FlowView, type Verikit } from '@verikit/core';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { redisInstanceSuite, scriptedInstance } from './redis-bus.fixtures.js';
import { createRedisChangeBus, type RedisChangeBusOptions } from './redis-change-bus.js';
import { commandsOf } from './counted-commands.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import { PrivateRedis, redisServerSkipReason, redisSkipReason, redisUrl } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis publishing writes');
/** The suites that need a redis-server of their own (one counts the server's subscribers, one sets an ACL). */
const serverMissing = await redisServerSkipReason('@verikit/redis publishing writes on a private server');
const secret = 'redis-publishing-write-secret-0123456789';
/**
 * Events sent at once to one flow: each is a check, and the checks of one flow run one after another, so the test's
 * time grows with this on a busy machine; 40 racing over two engines show a lost update as well as 100 did.
 */
const parallelEvents = 40;

/** A record at `version` of the flow `id` (what the store writes; the engine is not involved). */
function record(id: string, version: number): FlowRecord {
  return { schemaVersion: 1, id, kind: 'phone', version, value: 'sending', context: {}, createdAt: 1, updatedAt: 2 };
}

describe.skipIf(skipReason !== undefined)('a Redis change bus made with the store: one script per commit', () => {
  const { namespace, stores, buses, engines, raw } = redisInstanceSuite('publishing');

  /** One app instance with its store and bus; `publishes` counts the PUBLISH commands its client sends itself. */
  function instance(provider = createTestProviderV1()) {
    const store = createRedisStore({ url: redisUrl, namespace });
    const changeBus = createRedisChangeBus({ store });
    stores.push(store);
    buses.push(changeBus);
    const counter = { publishes: 0 };
    const client = store.client as unknown as { publish: (...args: unknown[]) => Promise<unknown> };
    const publish = client.publish.bind(client);
    client.publish = (...args) => {
      counter.publishes += 1;
      return publish(...args);
    };
    const verikit = createVerikit({ provider, store, changeBus, secret, policies: { maxAttempts: parallelEvents } });
    engines.push(verikit);
    return { store, changeBus, verikit, counter };
  }

  it('publishes each committed view from the compare-and-set script, never by a PUBLISH of its own', async () => {
    const a = instance();
    const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
    const heard: FlowView[] = [];
    const subscriber = raw().duplicate();
    await subscriber.connect();
    try {
      await subscriber.subscribe(a.changeBus.channelOf(flow.id), (message) => {
        heard.push(JSON.parse(message) as FlowView);
      });
      const local: FlowView[] = [];
      a.verikit.subscribe(flow.id, (view) => local.push(view));
      const checked = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
      await expect.poll(() => heard.map((view) => view.version)).toEqual([flow.version + 1, flow.version + 2]);
      expect(heard.at(-1)).toEqual(checked);
      expect(local.map((view) => view.version)).toEqual([flow.version + 1, flow.version + 2]);
      expect(a.counter.publishes).toBe(0);
      // The record is written as before: Keyv reads it.
      expect((await a.store.keyv.get<FlowRecord>(`flow:${flow.id}`))?.version).toBe(checked.version);
    } finally {
      await subscriber.quit();
    }
  });

  it(`two engines apply ${parallelEvents} parallel events to one flow with no lost update; a third sees every version once`, async () => {
    const provider = createTestProviderV1();
    const a = instance(provider);
    const b = instance(provider);
    const c = instance(provider);
    const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
    const seen: number[] = [];
    // A refused submit (a check is under way) waits for the flow's next change, which the third engine hears, rather
    // than retrying on a timer: a timer's retries spin against Redis for as long as the check takes, and on a busy
    // machine 99 of them took the test past its time limit (issue 35, finding 13). A change wakes the first few
    // waiters only (they race each other, over both engines, for the next check) and the rest at the next change. A
    // refusal means a check is under way, whose end is a change `seen` hears: no waiter waits for nothing.
    const waiting: Array<{ after: number; wake: () => void }> = [];
    const racersPerChange = 8;
    c.verikit.subscribe(flow.id, (view) => {
      seen.push(view.version);
      let woken = 0;
      for (const waiter of waiting.splice(0)) {
        if (seen.length > waiter.after && woken < racersPerChange) {
          woken += 1;
          waiter.wake();
        } else waiting.push(waiter);
      }
    });
    await c.changeBus.subscribed(flow.id);
    const changeAfter = (after: number) =>
      seen.length > after ? Promise.resolve() : new Promise<void>((wake) => waiting.push({ after, wake }));
    const submit = async (index: number) => {
      const engine = index % 2 === 0 ? a.verikit : b.verikit;
      for (;;) {
        const before = seen.length;
        try {
          return await engine.send(flow.id, { type: 'submit-code', code: '000000' });
        } catch (error) {
          if (!EventNotAllowedError.isInstance(error)) throw error;
          await changeAfter(before);
        }
      }
    };
    await Promise.all(Array.from({ length: parallelEvents }, (_, index) => submit(index)));
    const final = await c.verikit.get(flow.id);
    expect(final.status).toBe('locked');
    expect(provider.callsOf('phone.check')).toHaveLength(parallelEvents);
    // created (1) + code sent (1) + parallelEvents × (submitted, checked)
    const last = 2 + 2 * parallelEvents;
    expect(final.version).toBe(last);
    await expect.poll(() => seen.at(-1)).toBe(last);
    expect(seen).toEqual(Array.from({ length: last - flow.version }, (_, index) => flow.version + 1 + index));
    expect(a.counter.publishes + b.counter.publishes).toBe(0);
  });

  it('offers its publishing writes for its own store only, and publishes nothing once closed', async () => {
    const store = createRedisStore({ url: redisUrl, namespace });
    const other = createRedisStore({ url: redisUrl, namespace });
    stores.push(store, other);
    const bus = createRedisChangeBus({ store });
    buses.push(bus);
    expect(bus.publishingWrite(other)).toBeUndefined();
    const writes = bus.publishingWrite(store)!;
    const heard: string[] = [];
    const subscriber = raw().duplicate();
    await subscriber.connect();
    try {
      await subscriber.subscribe(bus.channelOf('flow-closed'), (message) => heard.push(message));
      const view = { id: 'flow-closed', version: 1 } as FlowView;
      // A new record is written without asking who follows (its id was unknown before: decision 1716).
      expect(await writes.compareAndSetAndPublish(record('flow-closed', 1), 0, 60_000, () => view)).toBe(true);
      expect(await writes.compareAndSetAndPublish(record('flow-closed', 2), 1, 60_000, () => view)).toBe(true);
      await expect.poll(() => heard).toHaveLength(1);
      await bus.close();
      expect(await writes.compareAndSetAndPublish(record('flow-closed', 3), 2, 60_000, () => view)).toBe(true);
      expect(await writes.compareAndSetAndPublish(record('flow-closed', 3), 2, 60_000, () => view)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).toHaveLength(1);
      expect((await store.getFlow('flow-closed'))?.version).toBe(3);
    } finally {
      await subscriber.quit();
    }
  });
});

describe.skipIf(skipReason !== undefined || serverMissing !== undefined)(
  'a Redis change bus on one node: no view for a flow nobody follows',
  () => {
    const { namespace, stores, buses, engines, raw, url } = redisInstanceSuite('unfollowed', { privateServer: true });

    /** One app instance; `scripts` lists each compare-and-set it sent: with the view or not, and Redis's answer. */
    function instance(options: Omit<RedisChangeBusOptions, 'store'> = {}) {
      const store = createRedisStore({ url: url(), namespace });
      return scriptedInstance({ stores, buses, engines }, store, createRedisChangeBus({ store, ...options }), secret);
    }

    /** A raw connection subscribed to `channel` (`how`: the command); `heard`: the versions it received. */
    async function follower(how: 'subscribe' | 'sSubscribe' | 'pSubscribe', channel: string) {
      const client = raw().duplicate();
      await client.connect();
      const heard: number[] = [];
      await client[how](channel, (message: string) => {
        heard.push((JSON.parse(message) as FlowView).version);
      });
      return { heard, quit: () => client.quit() };
    }

    it('commits a flow nobody follows without its view, and publishes once another connection subscribes', async () => {
      const a = instance({ followedHintMs: 0 });
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      a.scripts.length = 0;
      const wrong = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
      // Two commits (submitted, checked), each one script without the view, written at once.
      expect(a.scripts).toEqual([
        { view: false, reply: 1 },
        { view: false, reply: 1 },
      ]);
      expect((await a.store.getFlow(flow.id))?.version).toBe(wrong.version);
      const { heard, quit } = await follower('subscribe', a.changeBus.channelOf(flow.id));
      try {
        a.scripts.length = 0;
        const next = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
        // Followed: the script wrote nothing and said so (2); the same write went again with the view.
        expect(a.scripts).toEqual([
          { view: false, reply: 2 },
          { view: true, reply: 1 },
          { view: false, reply: 2 },
          { view: true, reply: 1 },
        ]);
        await expect.poll(() => heard).toEqual([next.version - 1, next.version]);
      } finally {
        await quit();
      }
    });

    it('remembers a flow found followed for followedHintMs: its next commits carry the view at once', async () => {
      const a = instance();
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      const { heard, quit } = await follower('subscribe', a.changeBus.channelOf(flow.id));
      try {
        a.scripts.length = 0;
        const last = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
        expect(a.scripts).toEqual([
          { view: false, reply: 2 },
          { view: true, reply: 1 },
          { view: true, reply: 1 },
        ]);
        await expect.poll(() => heard).toEqual([last.version - 1, last.version]);
      } finally {
        await quit();
      }
    });

    it('makes a view only to publish it or for a listener on this instance (decision 1450)', async () => {
      const store = createRedisStore({ url: url(), namespace });
      stores.push(store);
      const bus = createRedisChangeBus({ store, followedHintMs: 0 });
      buses.push(bus);
      const writes = bus.publishingWrite(store)!;
      let made = 0;
      const view = (version: number) => () => {
        made += 1;
        return { id: 'flow-lazy', version } as FlowView;
      };
      expect(await writes.compareAndSetAndPublish(record('flow-lazy', 1), 0, 60_000, view(1))).toBe(true);
      writes.deliverLocally('flow-lazy', view(1));
      expect(made).toBe(0);
      const { heard, quit } = await follower('subscribe', bus.channelOf('flow-lazy'));
      try {
        expect(await writes.compareAndSetAndPublish(record('flow-lazy', 2), 1, 60_000, view(2))).toBe(true);
        expect(made).toBe(1);
        await expect.poll(() => heard).toEqual([2]);
      } finally {
        await quit();
      }
      const local: number[] = [];
      const unsubscribe = bus.subscribe('flow-lazy', (seen) => local.push(seen.version));
      try {
        writes.deliverLocally('flow-lazy', view(3));
        expect(made).toBe(2);
        expect(local).toEqual([3]);
      } finally {
        unsubscribe();
      }
    });

    it('sends the view at once for a flow with a listener on this instance', async () => {
      const a = instance({ followedHintMs: 0 });
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      const local: number[] = [];
      const unsubscribe = a.verikit.subscribe(flow.id, (view) => local.push(view.version));
      await a.verikit.subscribed(flow.id);
      a.scripts.length = 0;
      const last = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
      unsubscribe();
      expect(a.scripts).toEqual([
        { view: true, reply: 1 },
        { view: true, reply: 1 },
      ]);
      expect(local).toEqual([last.version - 1, last.version]);
    });

    it('publishes every change while a pattern subscription exists on the server (PUBSUB NUMSUB does not count it)', async () => {
      const a = instance({ followedHintMs: 0 });
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      const { heard, quit } = await follower('pSubscribe', `${a.changeBus.channelOf('')}*`);
      try {
        const last = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
        await expect.poll(() => heard).toEqual([last.version - 1, last.version]);
      } finally {
        await quit();
      }
    });

    /** Another app instance on the suite's server, its engine on `provider`, sending unguarded. */
    function engineOn(provider: ReturnType<typeof createTestProviderV1>) {
      const store = createRedisStore({ url: url(), namespace });
      const changeBus = createRedisChangeBus({ store, followedHintMs: 0 });
      stores.push(store);
      buses.push(changeBus);
      const verikit = createVerikit({ provider, store, changeBus, secret, guard: false });
      engines.push(verikit);
      return { store, changeBus, verikit };
    }

    /** A provider whose next send waits for `until` (a follower subscribing meanwhile). */
    function sendAfter(until: () => Promise<unknown>) {
      const provider = createTestProviderV1();
      provider.script('phone.send', async () => {
        await until();
        return { requestId: `held-${freshPhoneNumber()}` };
      });
      return provider;
    }

    it("a start's commit after its send asks only PUBSUB NUMPAT: its id has reached nobody (decision 1830)", async () => {
      const a = instance({ followedHintMs: 0 });
      await a.store.connect();
      const made = await commandsOf(a.store, () => a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() }));
      expect(made['pubsub|numsub']).toBeUndefined();
      expect(made['pubsub|numpat']).toBe(1);
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      const later = await commandsOf(a.store, () => a.verikit.send(flow.id, { type: 'submit-code', code: '000000' }));
      // Once the start has returned the id, each commit asks about the flow's channel again.
      expect(later['pubsub|numsub']).toBe(2);
    });

    /** The SETs `store`'s client sends itself (a script's own SETs are not among them). */
    function countSets(store: { client: unknown }): { count: number } {
      const counter = { count: 0 };
      const client = store.client as { set: (...args: unknown[]) => Promise<unknown> };
      const set = client.set.bind(client);
      client.set = (...args) => {
        counter.count += 1;
        return set(...args);
      };
      return counter;
    }

    /** The delivery receipt routes to `flowId` on the suite's server, with their and the flow record's PTTL. */
    async function receiptRoutes(store: { redisKey(key: string): string }, flowId: string) {
      const routes: Array<{ value: unknown; pttl: number }> = [];
      for (const key of await raw().keys(store.redisKey('route:delivery:message:*'))) {
        const value = (JSON.parse((await raw().get(key))!) as { value: unknown }).value;
        if (value === flowId) routes.push({ value, pttl: await raw().pTTL(key) });
      }
      return { routes, recordPttl: await raw().pTTL(store.redisKey(`flow:${flowId}`)) };
    }

    it("a send's receipt route is written by the script that commits the send, as long as the record (decision 2010)", async () => {
      const a = instance({ followedHintMs: 0 });
      await a.store.connect();
      const sets = countSets(a.store);
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      // The new flow's SET NX only: the route's SET went with the compare-and-set that committed the send.
      expect(sets.count).toBe(1);
      const { routes, recordPttl } = await receiptRoutes(a.store, flow.id);
      expect(routes).toHaveLength(1);
      expect(Math.abs(routes[0]!.pttl - recordPttl)).toBeLessThan(50);
      // Followed (a pattern subscriber): the script writes nothing, and the write sent again with the view writes both.
      const { quit } = await follower('pSubscribe', a.changeBus.channelOf('*'));
      try {
        a.scripts.length = 0;
        const followed = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
        expect(a.scripts).toEqual([
          { view: false, reply: 2 },
          { view: true, reply: 1 },
        ]);
        expect((await receiptRoutes(a.store, followed.id)).routes).toHaveLength(1);
      } finally {
        await quit();
      }
    });

    it("a pattern subscriber still hears a start's commit after its send (decision 1830)", async () => {
      const a = instance({ followedHintMs: 0 });
      const { heard, quit } = await follower('pSubscribe', `${a.changeBus.channelOf('')}*`);
      try {
        a.scripts.length = 0;
        const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
        expect(flow.version).toBe(2);
        // The new flow's first write is not published (decision 1716); the send's commit is.
        expect(a.scripts).toEqual([
          { view: false, reply: 2 },
          { view: true, reply: 1 },
        ]);
        await expect.poll(() => heard).toEqual([2]);
      } finally {
        await quit();
      }
    });

    it('a start with an idempotency key or an owner asks who follows: a repeat that follows at once hears the send', async () => {
      for (const options of [
        { idempotencyKey: `key-${freshPhoneNumber()}` },
        { owner: `owner-${freshPhoneNumber()}` },
      ]) {
        let followed: Promise<void> | undefined;
        const phoneNumber = freshPhoneNumber();
        const b = engineOn(createTestProviderV1());
        const heard: number[] = [];
        // The repeat finds the flow through its route key while the first start's send is still under way.
        const a = engineOn(
          sendAfter(async () => {
            const repeat = await b.verikit.start({ kind: 'phone', phoneNumber }, options);
            b.verikit.subscribe(repeat.id, (view) => heard.push(view.version));
            followed = b.verikit.subscribed(repeat.id);
            await followed;
          }),
        );
        const flow = await a.verikit.start({ kind: 'phone', phoneNumber }, options);
        expect(followed).toBeDefined();
        await expect.poll(() => heard).toEqual([flow.version]);
      }
    });

    it("a start told to a lifecycle listener asks who follows: a follower it names hears the send's commit", async () => {
      const b = engineOn(createTestProviderV1());
      const heard: number[] = [];
      let followed: Promise<void> | undefined;
      const a = engineOn(sendAfter(() => followed ?? Promise.reject(new Error('no started event before the send'))));
      a.verikit.on('started', (event) => {
        b.verikit.subscribe(event.flowId, (view) => heard.push(view.version));
        followed = b.verikit.subscribed(event.flowId);
      });
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      await expect.poll(() => heard).toEqual([flow.version]);
    });

    it('with sharded pub/sub on one node, asks PUBSUB SHARDNUMSUB', async () => {
      const a = instance({ pubSub: 'sharded', followedHintMs: 0 });
      const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      a.scripts.length = 0;
      await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
      expect(a.scripts.map((script) => script.reply)).toEqual([1, 1]);
      const { heard, quit } = await follower('sSubscribe', a.changeBus.channelOf(flow.id));
      try {
        a.scripts.length = 0;
        const last = await a.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
        expect(a.scripts.map((script) => script.reply)).toEqual([2, 1, 2, 1]);
        await expect.poll(() => heard).toEqual([last.version - 1, last.version]);
      } finally {
        await quit();
      }
    });

    it('sends the view with every commit with publishEveryChange, and by default with a subscriber connection of its own', async () => {
      const every = instance({ publishEveryChange: true });
      const given = raw().duplicate();
      const own = instance({ subscriber: given as never });
      for (const each of [every, own]) {
        const flow = await each.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
        each.scripts.length = 0;
        await each.verikit.send(flow.id, { type: 'submit-code', code: '000000' });
        expect(each.scripts).toEqual([
          { view: true, reply: 1 },
          { view: true, reply: 1 },
        ]);
      }
    });
  },
);

describe.skipIf(serverMissing !== undefined)(
  'a Redis user that may publish but not ask PUBSUB (a private server)',
  () => {
    it('commits every change with its view once Redis refused the question, and says so once', async () => {
      const redis = await PrivateRedis.start();
      const admin = createClient({ url: redis.url });
      await admin.connect();
      const warnings: string[] = [];
      try {
        await admin.sendCommand([
          'ACL',
          'SETUSER',
          'app',
          'on',
          '>app-password',
          '~*',
          '&*',
          '+@all',
          '-pubsub|numsub',
        ]);
        const url = redis.url.replace('redis://', 'redis://app:app-password@');
        const store = createRedisStore({ url, namespace: 'acl' });
        const warn = (event: string) => warnings.push(event);
        const changeBus = createRedisChangeBus({ store, logger: { debug() {}, info() {}, warn, error() {} } });
        const engines: Verikit[] = [];
        try {
          const { verikit, scripts } = scriptedInstance({ stores: [], buses: [], engines }, store, changeBus, secret);
          const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
          scripts.length = 0;
          const last = await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
          // The start's own commits ask about pattern subscribers only (decision 1830), which this user may: the first
          // submit's commit was refused the question (the recorder sees answers only) and sent again with the view.
          expect(scripts).toEqual([
            { view: true, reply: 1 },
            { view: true, reply: 1 },
          ]);
          expect((await store.getFlow(flow.id))?.version).toBe(last.version);
          expect(warnings).toEqual(['verikit.redis.followers.unasked']);
        } finally {
          for (const engine of engines) await engine.close();
          await changeBus.close();
          await store.close();
        }
      } finally {
        admin.destroy();
        await redis.dispose();
      }
    });
  },
);
