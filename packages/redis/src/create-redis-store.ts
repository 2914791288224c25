import KeyvRedis, { type RedisClientOptions } from '@keyv/redis';
import Keyv from 'keyv';
import { RedisFlowStore } from './redis-flow-store.js';
import {
  checkRedisUrl,
  defaultCommandTimeoutMs,
  defaultConnectTimeoutMs,
  failFastReconnect,
} from './redis-connection.js';

/** Options of {@link createRedisStore}. */
export interface RedisStoreOptions {
  /**
   * `redis://[user:password@]host:port[/db]` (or `rediss://`). Default `redis://127.0.0.1:6379`. Any other
   * form (`127.0.0.1:6379`, `localhost`) is an `InvalidInputError` naming `url`.
   */
  url?: string;
  /**
   * node-redis client options, merged under what this package requires: `disableOfflineQueue` is
   * always true, and a reconnect strategy that fails the first connection at once and retries a lost
   * one with a short backoff is used unless `socket.reconnectStrategy` is given.
   */
  client?: RedisClientOptions;
  /** Prefix of every key: `<namespace>::flow:<id>`. Default `verikit`. One namespace per deployment or test. */
  namespace?: string;
  /** How long to wait for a connection before a call fails with a `StoreError`. Default 2000 ms. */
  connectTimeoutMs?: number;
  /**
   * How long the commands of one engine call (`start`, `send`, `get`, …) may wait for Redis's answers in all before
   * the call fails with a `StoreDeadlineError` (a Redis that hangs rather than refuses); a command made outside an
   * engine call has it to itself. Default 5000 ms; 0 turns it off.
   */
  commandTimeoutMs?: number;
}

const defaultNamespace = 'verikit';

/**
 * Creates a {@link RedisFlowStore} with its own connection, configured so that an outage is a typed
 * error at once: offline queue off, a connect timeout, a command timeout, and no connection retry
 * while the caller waits.
 *
 * @example
 * const store = createRedisStore({ url: process.env.REDIS_URL, namespace: 'verikit' });
 * const verikit = createVerikit({ provider, store, changeBus: createRedisChangeBus({ store }), secret });
 * // on shutdown
 * await store.close();
 */
export function createRedisStore(options: RedisStoreOptions = {}): RedisFlowStore {
  const url = options.url ?? options.client?.url ?? 'redis://127.0.0.1:6379';
  checkRedisUrl(url, options.url === undefined && options.client?.url !== undefined ? 'client.url' : 'url');
  const reconnect = failFastReconnect();
  const connectTimeoutMs = options.connectTimeoutMs ?? defaultConnectTimeoutMs;
  const commandTimeoutMs = options.commandTimeoutMs ?? defaultCommandTimeoutMs;
  const given = options.client ?? {};
  const clientOptions: RedisClientOptions = {
    ...given,
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: connectTimeoutMs,
      reconnectStrategy: reconnect.strategy,
      ...given.socket,
    } as RedisClientOptions['socket'],
  };
  const namespace = options.namespace ?? defaultNamespace;
  const adapter = new KeyvRedis(clientOptions, adapterOptions(namespace, connectTimeoutMs));
  adapter.client.on('ready', reconnect.onReady);
  return new RedisFlowStore(flowKeyv(adapter, namespace), { connectTimeoutMs, commandTimeoutMs });
}

/** The options of a flow store's Keyv Redis adapter, on one node or a cluster: every error thrown, none swallowed. */
export function adapterOptions(namespace: string, connectTimeoutMs: number) {
  return { namespace, throwOnErrors: true, throwOnConnectError: true, connectionTimeout: connectTimeoutMs };
}

/** The Keyv a {@link RedisFlowStore} runs over: the store's own key names (no Keyv prefix), JSON, errors thrown. */
export function flowKeyv(adapter: Keyv['store'], namespace: string): Keyv {
  return new Keyv(adapter, {
    namespace,
    useKeyPrefix: false,
    serialize: JSON.stringify,
    deserialize: JSON.parse,
    throwOnErrors: true,
  });
}
