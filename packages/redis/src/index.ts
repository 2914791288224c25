/**
 * Run verikit on many app instances sharing one Redis (or Valkey, or Redis Cluster): a flow store
 * through `@keyv/redis` whose compare-and-set is one Lua script, and a change bus over Redis
 * pub/sub so a UI attached to any instance sees every change.
 *
 * @example
 * import { createRedisChangeBus, createRedisStore } from '@verikit/redis';
 * const store = createRedisStore({ url: process.env.REDIS_URL });
 * const changeBus = createRedisChangeBus({ store });
 * const verikit = createVerikit({ provider, store, changeBus, secret: process.env.VERIKIT_SECRET! });
 *
 * @module
 */
export { createRedisStore, type RedisStoreOptions } from './create-redis-store.js';
export { RedisFlowStore, type RedisFlowStoreClient, type RedisFlowStoreOptions } from './redis-flow-store.js';
export { createRedisChangeBus, RedisChangeBus, type RedisChangeBusOptions } from './redis-change-bus.js';
export { createRedisClusterStore, type RedisClusterStoreOptions } from './redis-cluster-store.js';
export type { PubSubMode } from './subscriber-link.js';
/** @public Documented in docs/abuse.md: the send guard's counts on a Redis of their own. */
export { createRedisSendGuard, type RedisSendGuardHost, type RedisSendGuardOptions } from './redis-send-guard.js';
/** @public Documented in docs/scaling.md: withFailover's breakers shared by every instance. */
export { createRedisCircuits, RedisCircuits, type RedisCircuitsOptions } from './redis-circuits.js';
/** @public Documented in docs/routing.md: a learning router's counts shared by every instance. */
export { createRedisRouteCounts, type RedisRouteCountsOptions } from './redis-route-counts.js';
