import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createVerikit, type FlowStore } from '@verikit/core';
import { createWebhookHandler } from '@verikit/http';
import type { ProviderEventV1, RawWebhookV1 } from '@verikit/provider';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { deliverWebhook, scenarioWebhookSecret, signWebhook } from './multi-process.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis webhook lease');
const engineSecret = 'redis-webhook-lease-secret-0123456789abc';

function parse(webhook: RawWebhookV1): ProviderEventV1 | null {
  const body = JSON.parse(webhook.body) as { event: string; phoneNumber: string; status: 'success' | 'failed' };
  return body.event === 'USSD_VERIFICATION'
    ? { type: 'ussd-verification', phoneNumber: body.phoneNumber, status: body.status }
    : null;
}

/** The shared store as an instance sees it that froze, then died, in its first flow write. */
function frozenWrites(shared: FlowStore): { store: FlowStore; reached: Promise<void> } {
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const store: FlowStore = {
    getFlow: (id) => shared.getFlow(id),
    compareAndSetFlow: () => {
      reach();
      return new Promise<boolean>(() => {});
    },
    getRoute: (key) => shared.getRoute(key),
    setRoute: (key, flowId, ttlMs) => shared.setRoute(key, flowId, ttlMs),
    claim: (key, ttlMs) => shared.claim(key, ttlMs),
    consume: (...args) => shared.consume(...args),
  };
  return { store, reached };
}

describe.skipIf(skipReason !== undefined)('a webhook claimed on Redis by an instance that died', () => {
  const namespace = uniqueNamespace('webhook-lease');
  let store: RedisFlowStore | undefined;

  afterAll(async () => {
    await store?.close();
    await deleteNamespace(namespace);
  });

  it('is answered 409 with Retry-After by another instance until the claim lapses, then applied exactly once', async () => {
    store = createRedisStore({ url: redisUrl, namespace });
    const provider = createTestProviderV1();
    const verikit = createVerikit({ provider, store, secret: engineSecret });
    const dead = frozenWrites(store);
    // A 200 ms processing deadline: a claim lapses (Redis PX) 300 ms after it was taken.
    const options = { secret: scenarioWebhookSecret, parse, processingTimeoutMs: 200 };
    const dying = createWebhookHandler({
      verikit: createVerikit({ provider, store: dead.store, secret: engineSecret }),
      ...options,
    });
    const healthy = createWebhookHandler({ verikit, ...options });

    // A real mobile number shape (random digits after +23481 are not all valid under the full metadata).
    const phoneNumber = freshPhoneNumber();
    const flow = await verikit.start({ kind: 'ussd', phoneNumber });
    const webhook = signWebhook(
      flow.id,
      `msg_${randomUUID().replaceAll('-', '')}`,
      { event: 'USSD_VERIFICATION', phoneNumber, status: 'success' },
      Date.now(),
    );

    void deliverWebhook(dying, webhook).catch(() => undefined);
    await dead.reached; // it claimed the message and froze writing the flow

    const request = () =>
      new Request('http://localhost/verikit/webhooks', {
        method: 'POST',
        headers: webhook.headers,
        body: webhook.body,
      });
    const blocked = await healthy(request());
    expect([blocked.status, blocked.headers.get('retry-after'), await blocked.json()]).toEqual([
      409,
      '1',
      { status: 'in-progress' },
    ]);
    expect((await verikit.get(flow.id)).version).toBe(flow.version);

    await sleep(300);
    let retried = await deliverWebhook(healthy, webhook);
    for (let wait = 0; retried.httpStatus === 409 && wait < 50; wait += 1) {
      await sleep(50);
      retried = await deliverWebhook(healthy, webhook);
    }
    expect(retried).toMatchObject({ httpStatus: 200, status: 'applied', appliedTo: flow.id });
    expect(await deliverWebhook(healthy, webhook)).toMatchObject({ httpStatus: 200, status: 'duplicate' });
    const verified = await verikit.get(flow.id);
    expect([verified.status, verified.version]).toEqual(['verified', flow.version + 1]);
  });
});
