/**
 * For tests that count what a call costs Redis: a flow store on a redis-server of the test's own (server-wide counts
 * would see every other suite on the shared one), and the commands a piece of work made, from `INFO commandstats`.
 */
import { afterAll } from 'vitest';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { PrivateRedis } from './redis-test-env.fixtures.js';

/** A store on a private redis-server, made on first use and closed with the server after the suite. */
export function usePrivateStore(namespace: string): () => Promise<RedisFlowStore> {
  let redis: PrivateRedis | undefined;
  let store: RedisFlowStore | undefined;
  afterAll(async () => {
    await store?.disconnect();
    await redis?.dispose();
  });
  return async () => {
    redis ??= await PrivateRedis.start();
    store ??= createRedisStore({ url: redis.url, namespace });
    return store;
  };
}

async function commandCalls(store: RedisFlowStore): Promise<Map<string, number>> {
  const calls = new Map<string, number>();
  for (const line of (await store.client.info('commandstats')).split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) calls.set(match[1]!, Number(match[2]));
  }
  return calls;
}

/** The commands `work` made on the store's server, per command (lower case, as Redis names them; `INFO` left out). */
export async function commandsOf(store: RedisFlowStore, work: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await commandCalls(store);
  await work();
  const made: Record<string, number> = {};
  for (const [name, calls] of await commandCalls(store)) {
    const delta = calls - (before.get(name) ?? 0);
    if (name !== 'info' && delta !== 0) made[name] = delta;
  }
  return made;
}
