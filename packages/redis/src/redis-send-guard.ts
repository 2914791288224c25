import { InvalidInputError } from '@verikit/provider';
import type { GuardLimiterSpec, GuardRateLimiter, SendGuardStore } from '@verikit/core';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { CommandDeadline } from './command-deadline.js';

/** What the guard's counts need of a Redis flow store: its connection and its key names. */
export interface RedisSendGuardHost {
  /** The node-redis client (single node or cluster) the counts run on. */
  readonly client: unknown;
  /** Connects if not connected; a `StoreError` when Redis cannot be reached. */
  connect(): Promise<void>;
  /** The Redis key of a store key (`<namespace>::<key>`). */
  redisKey(key: string): string;
}

/** Options of {@link createRedisSendGuard}. */
export interface RedisSendGuardOptions {
  /** The Redis flow store (`createRedisStore`, `createRedisClusterStore`) whose connection and namespace the counts use. */
  store: RedisSendGuardHost;
  /** How long a count may wait for Redis before the send fails with a `StoreError`. Default 5000 ms; 0 turns it off. */
  commandTimeoutMs?: number;
}

function isHost(value: unknown): value is RedisSendGuardHost {
  const host = value as RedisSendGuardHost | null | undefined;
  return (
    typeof host === 'object' &&
    host !== null &&
    typeof host.connect === 'function' &&
    typeof host.redisKey === 'function' &&
    typeof host.client === 'object' &&
    host.client !== null
  );
}

/**
 * The send guard's counts in Redis, shared by every instance of the deployment: one
 * rate-limiter-flexible `RateLimiterRedis` per limit on the store's own node-redis client (one
 * Lua script on one key per count, so it runs on Redis Cluster as on one node). Keys are
 * `<namespace>::guard:<limit>:<keyed hash>` (`…:guard:global:all`): never a number or an address.
 *
 * A Redis flow store already offers this as its `sendGuardStore()`, which the engine uses by
 * default; create one yourself only to count somewhere else than the flows.
 *
 * @example
 * const store = createRedisStore({ url: process.env.REDIS_URL });
 * const verikit = createVerikit({ provider, store, secret, guard: { store: createRedisSendGuard({ store }), global: { points: 5000 } } });
 */
export function createRedisSendGuard(options: RedisSendGuardOptions): SendGuardStore {
  if (typeof options !== 'object' || options === null || !isHost(options.store)) {
    throw new InvalidInputError([
      { field: 'store', message: 'must be a Redis flow store (createRedisStore or createRedisClusterStore)' },
    ]);
  }
  const timeout = options.commandTimeoutMs ?? 5000;
  if (!Number.isInteger(timeout) || timeout < 0 || timeout > 2_147_483_647) {
    throw new InvalidInputError([{ field: 'commandTimeoutMs', message: 'must be a whole number of ms, 0 or more' }]);
  }
  const { store } = options;
  const deadline = new CommandDeadline(timeout);
  return {
    limiter(spec: GuardLimiterSpec): GuardRateLimiter {
      const limiter = new RateLimiterRedis({
        storeClient: store.client,
        // node-redis v4/v5 (single node and cluster): rate-limiter-flexible cannot always tell it from ioredis.
        useRedisPackage: true,
        keyPrefix: store.redisKey(spec.keyPrefix),
        points: spec.points,
        duration: spec.durationSeconds,
      });
      return {
        consume: async (key, points) => {
          await store.connect();
          return deadline.guard(limiter.consume(key, points));
        },
        reward: async (key, points) => {
          await store.connect();
          return deadline.guard(limiter.reward(key, points));
        },
      };
    },
  };
}
