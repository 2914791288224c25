import { createVerikit, EventNotAllowedError, type FlowRecord, type FlowView } from '@verikit/core';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { redisInstanceSuite } from './redis-bus.fixtures.js';
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisStore } from './redis-flow-store.js';
import { redisSkipReason, redisUrl } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis publishing writes');
const secret = 'redis-publishing-write-secret-0123456789';

/** A record at `version` of the flow `id` (what the store writes; the engine is not involved). */
function record(id: string, version: number): FlowRecord {
  return { schemaVersion: 1, id, kind: 'phone', version, value: 'sending', context: {}, createdAt: 1, updatedAt: 2 };
}

describe.skipIf(skipReason !== undefined)('a Redis change bus made with the store: one script per commit', () => {
  const { namespace, stores, buses, raw } = redisInstanceSuite('publishing');

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
    const verikit = createVerikit({ provider, store, changeBus, secret, policies: { maxAttempts: 100 } });
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

  it('two engines apply 100 parallel events to one flow with no lost update; a third sees every version once', async () => {
    const provider = createTestProviderV1();
    const a = instance(provider);
    const b = instance(provider);
    const c = instance(provider);
    const flow = await a.verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
    const seen: number[] = [];
    c.verikit.subscribe(flow.id, (view) => seen.push(view.version));
    await c.changeBus.subscribed(flow.id);
    const submit = async (index: number) => {
      const engine = index % 2 === 0 ? a.verikit : b.verikit;
      for (let attempt = 0; attempt < 2000; attempt += 1) {
        try {
          return await engine.send(flow.id, { type: 'submit-code', code: '000000' });
        } catch (error) {
          if (!EventNotAllowedError.isInstance(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
        }
      }
      throw new Error('a submit was never accepted');
    };
    await Promise.all(Array.from({ length: 100 }, (_, index) => submit(index)));
    const final = await c.verikit.get(flow.id);
    expect(final.status).toBe('locked');
    expect(provider.callsOf('phone.check')).toHaveLength(100);
    // created (1) + code sent (1) + 100 × (submitted, checked)
    expect(final.version).toBe(202);
    await expect.poll(() => seen.at(-1)).toBe(202);
    expect(seen).toEqual(Array.from({ length: 202 - flow.version }, (_, index) => flow.version + 1 + index));
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
      expect(await writes.compareAndSetAndPublish(record('flow-closed', 1), 0, 60_000, view)).toBe(true);
      await expect.poll(() => heard).toHaveLength(1);
      await bus.close();
      expect(await writes.compareAndSetAndPublish(record('flow-closed', 2), 1, 60_000, view)).toBe(true);
      expect(await writes.compareAndSetAndPublish(record('flow-closed', 2), 1, 60_000, view)).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(heard).toHaveLength(1);
      expect((await store.getFlow('flow-closed'))?.version).toBe(2);
    } finally {
      await subscriber.quit();
    }
  });
});
