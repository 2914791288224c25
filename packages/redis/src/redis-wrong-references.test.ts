import { randomUUID } from 'node:crypto';
import { createVerikit, RateLimitedError, type ProviderV1 } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis wrong dial-in references');
const secret = 'wrong-references-secret-0123456789abcdef';
const namespace = uniqueNamespace('wrong-refs');

/** The test provider with a dial-in capability (dials are handed to `verikit.receive`). */
function carrier() {
  const dialIn: NonNullable<ProviderV1['dialIn']> = {
    serviceCode: '*384*1234#',
    parseSession: () => {
      throw new Error('not used: dials are handed to verikit.receive');
    },
    answer: (kind, screen) => ({ body: `${kind} ${screen}`, contentType: 'text/plain' }),
  };
  return Object.assign(createTestProviderV1(), { dialIn });
}

describe.skipIf(skipReason !== undefined)('wrong dial-in references counted on one Redis by every instance', () => {
  const stores: RedisFlowStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.disconnect();
    await deleteNamespace(namespace);
  });

  it("two instances share one dialling number's limit: the sixth wrong reference is refused, wherever it lands", async () => {
    const instances = [0, 1].map(() => {
      const store = createRedisStore({ url: redisUrl, namespace });
      stores.push(store);
      return createVerikit({ provider: carrier(), store, secret });
    });
    const dial = (index: number, reference: string) =>
      instances[index % 2]!.receive({
        id: `dial-in:ATUid_${randomUUID()}`,
        event: { type: 'dial-in', phoneNumber: '+2348035550001', reference },
      });
    for (let index = 0; index < 5; index += 1)
      expect((await dial(index, String(10_000_000 + index))).outcome).toBe('no-active-flow');
    await expect(dial(5, '10000005')).rejects.toSatisfy(RateLimitedError.isInstance);
    await expect(dial(6, '10000006')).rejects.toSatisfy(RateLimitedError.isInstance);
  });
});
