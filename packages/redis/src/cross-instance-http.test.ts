/**
 * Two app instances sharing one Redis: an SSE client attached to instance B sees a change made on
 * instance A. Mandatory when CI=true; skipped, with the reason printed, when Redis is unreachable
 * and CI is not set.
 */
import { createRedisChangeBus, createRedisStore, type RedisChangeBus, type RedisFlowStore } from '@verikit/redis';
import { createTestProviderV1, freshPhoneNumber, ServerSentEventReader } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createVerikit, type FlowView } from '@verikit/core';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

async function listen(
  handler: (request: Request) => Promise<Response>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(toNodeHandler(handler)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function nextView(events: ServerSentEventReader): Promise<FlowView | undefined> {
  const event = await events.nextEvent('view');
  return event === undefined ? undefined : (JSON.parse(event.data) as FlowView);
}

const secret = 'cross-instance-http-secret-0123456789abcdef';
const unavailable = await redisSkipReason('cross-instance SSE');

describe.skipIf(unavailable !== undefined)('SSE across instances sharing Redis', () => {
  const namespace = uniqueNamespace('http');
  const stores: RedisFlowStore[] = [];
  const buses: RedisChangeBus[] = [];
  const servers: Array<() => Promise<void>> = [];

  /** One app instance: its own Redis connections and change bus, its own HTTP server. */
  async function instance(clock?: { now(): number }) {
    const store = createRedisStore({ url: redisUrl, namespace });
    const changeBus = createRedisChangeBus({ store });
    stores.push(store);
    buses.push(changeBus);
    const provider = createTestProviderV1();
    const verikit = createVerikit({ provider, store, changeBus, secret, ...(clock ? { clock } : {}) });
    const served = await listen(createFlowHandler({ verikit }));
    servers.push(served.close);
    return { url: served.url, changeBus, provider, verikit };
  }

  afterAll(async () => {
    for (const close of servers) await close();
    for (const bus of buses) await bus.close();
    for (const store of stores) await store.close();
    if (unavailable === undefined) await deleteNamespace(namespace);
  });

  it('an SSE client on instance B sees the change a POST event made on instance A', async () => {
    // Both engines' clocks stand still at one instant, so the view B reads carries the serverTime of A's answer.
    const at = Date.now();
    const clock = { now: () => at };
    const a = await instance(clock);
    const b = await instance(clock);
    const phoneNumber = freshPhoneNumber();
    const started = await (await postJson(`${a.url}/flows`, { kind: 'phone', phoneNumber })).json();
    // The flow secret from instance A opens the flow on instance B: it is derived from the shared engine secret.
    const { flowSecret, ...flow } = started as FlowView & { flowSecret: string };
    const owned = { 'verikit-flow-secret': flowSecret };
    expect(flow.status).toBe('awaiting-code');

    const controller = new AbortController();
    const events = new ServerSentEventReader(
      await fetch(`${b.url}/flows/${flow.id}/stream`, { signal: controller.signal, headers: owned }),
    );
    expect(await nextView(events)).toEqual(flow);
    // The Redis SUBSCRIBE is asynchronous: wait for it, as the handler does when the engine exposes it.
    await b.verikit.subscribed(flow.id);

    const response = await postJson(
      `${a.url}/flows/${flow.id}/events`,
      { type: 'submit-code', code: a.provider.lastCode(phoneNumber) },
      owned,
    );
    const verified = (await response.json()) as FlowView;
    expect(verified.status).toBe('verified');

    const seen: FlowView[] = [];
    for (let next = await nextView(events); next !== undefined; next = await nextView(events)) seen.push(next);
    expect(seen.at(-1)).toEqual(verified);
    expect(seen.map((view) => view.version)).toEqual(
      Array.from({ length: verified.version - flow.version }, (_, index) => flow.version + 1 + index),
    );
  });
});
