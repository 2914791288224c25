import { createClient } from '@keyv/redis';
import { createVerikit, type Verikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { afterAll, beforeAll } from 'vitest';
import type { RedisChangeBus } from './redis-change-bus.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, PrivateRedis, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

/**
 * The set-up of a suite of app instances on the shared Redis: a namespace of its own, the engines, stores and buses its
 * instances push (closed after the suite, engines first so no timer pass meets a closed store; their keys deleted) and a raw client for what the test checks in Redis.
 */
export function redisInstanceSuite(label: string, options: { privateServer?: boolean } = {}) {
  const namespace = uniqueNamespace(label);
  const stores: RedisFlowStore[] = [];
  const buses: RedisChangeBus[] = [];
  const engines: Verikit[] = [];
  let raw: ReturnType<typeof createClient> | undefined;
  let server: PrivateRedis | undefined;
  let url = redisUrl;
  beforeAll(async () => {
    // A suite that counts the server's subscribers (PUBSUB NUMPAT is server-wide) gets a redis-server of its own:
    // another test file's pattern subscription on the shared Redis would be counted as a follower.
    if (options.privateServer) {
      server = await PrivateRedis.start();
      url = server.url;
    }
    raw = createClient({ url });
    await raw.connect();
  });
  afterAll(async () => {
    for (const engine of engines) await engine.close();
    for (const bus of buses) await bus.close();
    for (const store of stores) await store.close();
    raw?.destroy();
    if (server) await server.dispose();
    else await deleteNamespace(namespace);
  });
  return { namespace, stores, buses, engines, raw: () => raw!, url: () => url };
}

/** One compare-and-set script with a channel that a store sent: with the view or without, and Redis's answer. */
export interface SentScript {
  readonly view: boolean;
  readonly reply: unknown;
}

/**
 * Records each compare-and-set script with a channel that `store` sends (`EVALSHA`): whether it carried the view (its
 * fifth argument, empty when left out) and Redis's answer (1 written, 0 conflict, 2 followed: nothing written).
 */
function recordScripts(store: RedisFlowStore): SentScript[] {
  const scripts: SentScript[] = [];
  const client = store.client as unknown as {
    evalSha: (sha: string, options: { arguments: string[] }) => Promise<unknown>;
  };
  const evalSha = client.evalSha.bind(client);
  client.evalSha = async (sha, options) => {
    const reply = await evalSha(sha, options);
    // Six arguments with a channel, a seventh with route keys (decision 2010).
    if (options.arguments.length >= 6) scripts.push({ view: options.arguments[4] !== '', reply });
    return reply;
  };
  return scripts;
}

/**
 * An engine on `store` and `changeBus` (kept in `suite`, closed after it) whose compare-and-set scripts are recorded
 * ({@link recordScripts}); 100 attempts per code, and the send guard out of the way.
 */
export function scriptedInstance(
  suite: { stores: RedisFlowStore[]; buses: RedisChangeBus[]; engines?: Verikit[] },
  store: RedisFlowStore,
  changeBus: RedisChangeBus,
  secret: string,
) {
  suite.stores.push(store);
  suite.buses.push(changeBus);
  const scripts = recordScripts(store);
  const provider = createTestProviderV1();
  const verikit = createVerikit({ provider, store, changeBus, secret, guard: false, policies: { maxAttempts: 100 } });
  suite.engines?.push(verikit);
  return { store, changeBus, verikit, scripts };
}
