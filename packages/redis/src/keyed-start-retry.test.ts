import { createVerikit } from '@verikit/core';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { KeyedStartPlan } from './keyed-start-worker.fixtures.js';
import { WorkerProcess } from './multi-process.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis keyed start retried after its instance died');
const secret = 'keyed-start-retry-secret-0123456789abcdef';
const namespace = uniqueNamespace('keyed-start');

describe.skipIf(skipReason !== undefined)('a keyed start whose instance died between the claim and the write', () => {
  const stores: RedisFlowStore[] = [];
  let worker: WorkerProcess | undefined;
  afterAll(async () => {
    worker?.kill();
    for (const store of stores) await store.disconnect();
    await deleteNamespace(namespace);
  });

  it('is started by its retry on another instance (no 409 for a start that never happened), once', async () => {
    const plan: KeyedStartPlan = {
      url: redisUrl,
      namespace,
      secret,
      phoneNumber: freshPhoneNumber(),
      idempotencyKey: 'signup-form-7f3a',
    };
    worker = new WorkerProcess('keyed-start-worker.fixtures.ts', 0, plan);
    // The worker holds the key and is about to write its flow: it dies there.
    await worker.message('between');
    worker.kill();
    await worker.exited;

    const store = createRedisStore({ url: redisUrl, namespace });
    stores.push(store);
    const provider = createTestProviderV1();
    const verikit = createVerikit({ provider, store, secret });
    const input = { kind: 'phone' as const, phoneNumber: plan.phoneNumber };
    const retried = await verikit.start(input, { idempotencyKey: plan.idempotencyKey });
    expect(retried.status).toBe('awaiting-code');
    expect(provider.callsOf('phone.send')).toHaveLength(1);
    // The retry's flow is the key's flow from now on: a further retry returns it and sends nothing.
    const again = await verikit.start(input, { idempotencyKey: plan.idempotencyKey });
    expect(again.id).toBe(retried.id);
    expect(provider.callsOf('phone.send')).toHaveLength(1);
  });
});
