import KeyvRedis, { createCluster, type RedisClusterOptions } from '@keyv/redis';
import { adapterOptions, flowKeyv } from './create-redis-store.js';
import { RedisFlowStore } from './redis-flow-store.js';

/** Options of {@link createRedisClusterStore}. */
export interface RedisClusterStoreOptions {
  /**
   * Seed nodes, `redis://[user:password@]host:port` (or `rediss://`): any nodes of the cluster; the
   * client reads the rest from them. Give more than one, so start-up does not depend on one node.
   */
  urls: readonly string[];
  /**
   * node-redis cluster options, merged under what this package requires: `rootNodes` come from
   * `urls`, and every node connection has the offline queue off and reconnects with a short backoff
   * unless `defaults.socket.reconnectStrategy` is given.
   */
  cluster?: Partial<RedisClusterOptions>;
  /** Prefix of every key: `<namespace>::flow:<id>`. Default `verikit`. */
  namespace?: string;
  /** How long to wait for the cluster's slot map before a call fails with a `StoreError`. Default 2000 ms. */
  connectTimeoutMs?: number;
  /** How long the commands of one engine call may wait for answers in all before it fails. Default 5000 ms; 0 turns it off. */
  commandTimeoutMs?: number;
}

/** Reconnects a lost node connection every 50 ms to 1 s, with jitter, for as long as the node is in the slot map. */
function nodeReconnect(retries: number): number {
  return Math.min(50 * 2 ** retries, 1000) + Math.floor(Math.random() * 50);
}

/**
 * Creates a {@link RedisFlowStore} over a Redis Cluster (or Valkey cluster). Every key a call touches
 * is one key, so nothing crosses slots. During a failover, calls for the lost master's slots fail at
 * once with a retryable `StoreError`; once the cluster has promoted a replica, the store finds it
 * within about half a second, the dead node still gone (docs/scaling.md, "Redis Cluster").
 *
 * @example
 * const store = createRedisClusterStore({ urls: ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379'], namespace: 'verikit' });
 * const changeBus = createRedisChangeBus({ store }); // sharded pub/sub on a cluster
 */
export function createRedisClusterStore(options: RedisClusterStoreOptions): RedisFlowStore {
  const { urls } = options;
  if (
    !Array.isArray(urls) ||
    urls.length === 0 ||
    !urls.every((url) => typeof url === 'string' && /^rediss?:\/\//.test(url))
  ) {
    throw new TypeError('createRedisClusterStore urls must be a non-empty list of redis:// or rediss:// URLs');
  }
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
  const given = options.cluster ?? {};
  const cluster = createCluster({
    ...given,
    rootNodes: urls.map((url) => ({ url })),
    defaults: {
      ...given.defaults,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: connectTimeoutMs,
        reconnectStrategy: nodeReconnect,
        ...given.defaults?.socket,
      } as never,
    },
  });
  const namespace = options.namespace ?? 'verikit';
  const adapter = new KeyvRedis(cluster, adapterOptions(namespace, connectTimeoutMs));
  return new RedisFlowStore(flowKeyv(adapter, namespace), {
    connectTimeoutMs,
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
  });
}
