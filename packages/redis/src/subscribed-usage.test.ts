import { createVerikit, StoreError, UsageError } from '@verikit/core';
import { createTestProviderV1, failureOf, freshPhoneNumber } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisChangeBus, type RedisChangeBus } from './redis-change-bus.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis subscribed before subscribe');

describe.skipIf(skipReason !== undefined)('subscribed(flowId) before subscribe(flowId, …) on the Redis bus', () => {
  const namespace = uniqueNamespace('subscribed-usage');
  let store: RedisFlowStore | undefined;
  let changeBus: RedisChangeBus | undefined;

  afterAll(async () => {
    await changeBus?.close();
    await store?.close();
    await deleteNamespace(namespace);
  });

  it('is a usage error that says to subscribe first, from the engine and from the bus, never a 503-style outage', async () => {
    store = createRedisStore({ url: redisUrl, namespace });
    changeBus = createRedisChangeBus({ store });
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      store,
      changeBus,
      secret: 'redis-usage-test-secret-0123456789abcdef',
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });

    for (const error of [
      await failureOf(verikit.subscribed(flow.id)),
      await failureOf(changeBus.subscribed(flow.id)),
    ]) {
      expect(UsageError.isInstance(error)).toBe(true);
      expect(StoreError.isInstance(error)).toBe(false);
      expect(error).toMatchObject({ code: 'usage_error', field: 'flowId', isRetryable: false });
      expect((error as Error).message).toMatch(/call subscribe\(flowId, listener\) first/);
    }

    const unsubscribe = verikit.subscribe(flow.id, () => {});
    await expect(verikit.subscribed(flow.id)).resolves.toBeUndefined();
    unsubscribe();
  });
});
