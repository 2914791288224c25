import { createClient } from '@keyv/redis';
import { afterAll, beforeAll } from 'vitest';
import type { RedisChangeBus } from './redis-change-bus.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

/**
 * The set-up of a suite of app instances on the shared Redis: a namespace of its own, the stores and buses its
 * instances push (closed after the suite, their keys deleted) and a raw client for what the test checks in Redis.
 */
export function redisInstanceSuite(label: string) {
  const namespace = uniqueNamespace(label);
  const stores: RedisFlowStore[] = [];
  const buses: RedisChangeBus[] = [];
  let raw: ReturnType<typeof createClient> | undefined;
  beforeAll(async () => {
    raw = createClient({ url: redisUrl });
    await raw.connect();
  });
  afterAll(async () => {
    for (const bus of buses) await bus.close();
    for (const store of stores) await store.close();
    raw?.destroy();
    await deleteNamespace(namespace);
  });
  return { namespace, stores, buses, raw: () => raw! };
}
