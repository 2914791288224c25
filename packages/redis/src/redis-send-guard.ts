import { InvalidInputError } from '@verikit/provider';
import type {
  GuardCount,
  GuardLimiterSpec,
  GuardRateLimiter,
  GuardRefusal,
  RecipientCount,
  SendGuardStore,
} from '@verikit/core';
import { limitRecordKey } from '@verikit/core/internal';
import keySlot from 'cluster-key-slot';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { isClusterClient, type HealableCluster } from './cluster-healer.js';
import { CommandDeadline, CommandTimeoutError, deadlineError } from './command-deadline.js';
import { LuaScript, takeUnitLua, type RedisCommandClient } from './lua-script.js';

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

/** How many keys the global budget is spread over on a cluster (docs/decisions/0321-global-budget-spread-over-keys.md). */
const globalShards = 16;
/** How long one shard of the global budget may take before the next is tried. */
const shardAttemptMs = 500;
/** How long a shard that failed is passed over. */
const shardRestMs = 5000;
/** Shards that may fail for one send before it fails. */
const shardFailuresPerSend = 3;
const slotCount = 16_384;

/** A hash tag per shard, found once: shard i's key lives in the i-th sixteenth of the slot space, so the shards spread over the masters. */
const shardTags: readonly string[] = Array.from({ length: globalShards }, (_, shard) => {
  for (let attempt = 0; ; attempt += 1) {
    const tag = `g${shard}.${attempt}`;
    if (Math.floor((keySlot(tag) * globalShards) / slotCount) === shard) return tag;
  }
});

/**
 * The Redis key names of the guard, in one place: a limit's prefix (`<namespace>::guard:<limit>`, to which
 * rate-limiter-flexible adds `:<key>`), and the key of one shard of the global budget (`all:{g<n>.<m>}`).
 */
const guardKeys = {
  prefix: (store: RedisSendGuardHost, spec: GuardLimiterSpec) => store.redisKey(spec.keyPrefix),
  shard: (key: string, shard: number) => `${key}:{${shardTags[shard]}}`,
};

/**
 * Every count of one send in one script run, all or none (on one node: its keys have slots of their own; decision
 * 1715). KEYS the counters, as rate-limiter-flexible names them; per key four arguments: the limit's points, the units
 * this send takes, the window in ms, and `shared` for a key every sender counts on (it usually exists: `INCRBY`
 * first) or `own` (often new: `SET NX PX` first, one command when it is). A counter is rate-limiter-flexible's: a
 * whole number whose TTL is its window, set when it is made, so `reward` and a limiter of the previous release count
 * on the same units. Returns 0 when all were taken; when one would pass its points, `{index (from 0), ms left in its
 * window}`, and every unit this run took is given back first.
 *
 * The last key may be the recipient's send limit, the flow store's own counter (decision 1760): its four arguments are
 * the limit, the engine's clock, the window in ms and `recipient`, and one more argument after all the keys' is the
 * writer's wall clock. It is taken after the others as the store's limit script takes it ({@link takeUnitLua}).
 */
const countsScript = new LuaScript(`${takeUnitLua}
for i = 1, #KEYS do
  local base = (i - 1) * 4
  local used
  local points
  local left
  if ARGV[base + 4] == 'recipient' then
    local now = tonumber(ARGV[base + 2])
    local allowed, _, resetAt = takeUnit(KEYS[i], now, tonumber(ARGV[base + 1]), tonumber(ARGV[base + 3]), tonumber(ARGV[#KEYS * 4 + 1]))
    if allowed == 0 then
      left = resetAt - now
    end
  else
    local amount = tonumber(ARGV[base + 2])
    if ARGV[base + 4] ~= 'shared' and redis.call('SET', KEYS[i], amount, 'PX', ARGV[base + 3], 'NX') then
      used = amount
    else
      used = redis.call('INCRBY', KEYS[i], amount)
      if used == amount and redis.call('PTTL', KEYS[i]) < 0 then
        redis.call('PEXPIRE', KEYS[i], ARGV[base + 3])
      end
    end
    if used > tonumber(ARGV[base + 1]) then
      redis.call('DECRBY', KEYS[i], amount)
      left = redis.call('PTTL', KEYS[i])
    end
  end
  if left then
    for j = 1, i - 1 do
      redis.call('DECRBY', KEYS[j], ARGV[(j - 1) * 4 + 2])
    end
    return {i - 1, left}
  end
end
return 0
`);

/** The engine call a count is made for: the guard passes `{ call }` as a limiter's options. */
const callOf = (options: { [key: string]: unknown } | undefined): unknown => options?.call;

/** A limiter whose refused consume takes nothing: rate-limiter-flexible counts it, and it is given back at once. */
function takingNothingWhenRefused(limiter: RateLimiterRedis, deadline: CommandDeadline): GuardRateLimiter {
  return {
    consume: (key, points = 1, options) =>
      deadline
        .run(() => limiter.consume(key, points), callOf(options))
        .catch(async (reason: unknown) => {
          if (!(reason instanceof Error))
            await deadline.run(() => limiter.reward(key, points), callOf(options)).catch(() => undefined);
          throw reason;
        }),
    reward: (key, points = 1, options) => deadline.run(() => limiter.reward(key, points), callOf(options)),
  };
}

/**
 * The global budget on a cluster, spread over up to 16 keys on as many slot ranges (so over every master):
 * each send takes its unit from one shard picked at random, and from the next when that one is full or fails. A
 * shard that fails (its master dead or hung: no answer within 500 ms) is passed over for 5 s, so a lost master
 * costs the sends nothing but its share of the budget; a full one is passed over until its window ends.
 */
class SpreadBudget implements GuardRateLimiter {
  readonly #shards: readonly GuardRateLimiter[];
  readonly #masterOf: (shard: number) => string | undefined;
  readonly #fullUntil: number[];
  readonly #restUntil: number[];
  #last = 0;

  /** @param masterOf The address of the master serving a shard's key, from the client's slot map. */
  constructor(shards: readonly GuardRateLimiter[], masterOf: (shard: number) => string | undefined) {
    this.#shards = shards;
    this.#masterOf = masterOf;
    this.#fullUntil = shards.map(() => 0);
    this.#restUntil = shards.map(() => 0);
  }

  async consume(key: string, points = 1, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    const count = this.#shards.length;
    const first = Math.floor(Math.random() * count);
    const order = Array.from({ length: count }, (_, step) => (first + step) % count);
    const now = Date.now();
    // Resting shards are tried only when every shard rests (every master answered slowly): the budget still counts.
    const ready = order.filter((shard) => this.#restUntil[shard]! <= now);
    let failure: unknown;
    let failures = 0;
    for (const shard of ready.length > 0 ? ready : order) {
      if (this.#fullUntil[shard]! > Date.now() || (ready.length > 0 && this.#restUntil[shard]! > Date.now())) continue;
      if (failures >= shardFailuresPerSend) break;
      try {
        const result = await this.#shards[shard]!.consume(guardKeys.shard(key, shard), points, options);
        this.#last = shard;
        return result;
      } catch (reason) {
        // The engine call's Redis time is spent: no shard is at fault, and none would answer in time.
        if (reason instanceof CommandTimeoutError && (reason.ofCall || !reason.sent)) throw reason;
        if (reason instanceof Error) {
          // Every shard of that master rests: one lost master costs a send one attempt, not one per shard.
          const master = this.#masterOf(shard);
          for (let other = 0; other < count; other += 1)
            if (other === shard || (master !== undefined && this.#masterOf(other) === master))
              this.#restUntil[other] = Date.now() + shardRestMs;
          failure = reason;
          failures += 1;
        } else {
          const wait = (reason as { msBeforeNext?: number }).msBeforeNext ?? 1000;
          this.#fullUntil[shard] = Date.now() + wait;
        }
      }
    }
    if (failure !== undefined && failures >= shardFailuresPerSend) throw failure;
    const full = this.#fullUntil.filter((until) => until > Date.now());
    if (full.length === 0) throw failure ?? new Error('no shard of the global budget answered');
    throw new RateLimiterRes(0, Math.max(0, Math.min(...full) - Date.now()), 0, false);
  }

  async reward(key: string, points = 1, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    // The budget is the sum of the shards: a unit given back to the last shard that gave one is given back to it.
    const shard = this.#last;
    this.#fullUntil[shard] = 0;
    return this.#shards[shard]!.reward(guardKeys.shard(key, shard), points, options);
  }
}

/**
 * The store's client as rate-limiter-flexible sees it, its `eval` of a script sent as EVALSHA: the script's text goes
 * to a server once (on `NOSCRIPT`), not with every count. Everything else is the client's own.
 */
function scriptsBySha<Client extends object>(client: Client): Client {
  const scripts = new Map<string, LuaScript>();
  const evalBySha = (source: string, options: { keys: string[]; arguments: string[] }) => {
    let script = scripts.get(source);
    if (script === undefined) {
      script = new LuaScript(source);
      scripts.set(source, script);
    }
    if (options.keys.length !== 1) return (client as unknown as RedisCommandClient).eval(source, options);
    return script.run(client as unknown as RedisCommandClient, options.keys[0]!, options.arguments);
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'eval') return evalBySha;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The send guard's counts in Redis, shared by every instance of the deployment: one
 * rate-limiter-flexible `RateLimiterRedis` per limit on the store's own node-redis client (one
 * Lua script on one key per count, so it runs on Redis Cluster as on one node). Keys are
 * `<namespace>::guard:<limit>:<keyed hash>` (`…:guard:global:all` on one node): never a number or an
 * address. A refused count takes nothing.
 *
 * On a cluster the global budget is spread over 16 keys on 16 slot ranges (`…:guard:global:all:{g<n>.<m>}`,
 * each with its share of the points): a master that dies or hangs takes its share of the budget out for
 * as long as it is away, never the starts of numbers it does not serve (docs/abuse.md, docs/scaling.md).
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
  const storeClient = scriptsBySha(store.client as object);
  const deadline = new CommandDeadline(timeout);
  const shardDeadline = new CommandDeadline(timeout === 0 ? shardAttemptMs : Math.min(timeout, shardAttemptMs));
  const counter = (spec: GuardLimiterSpec, points: number, shardOf: CommandDeadline) =>
    takingNothingWhenRefused(
      new RateLimiterRedis({
        storeClient,
        // node-redis v4/v5 (single node and cluster): rate-limiter-flexible cannot always tell it from ioredis.
        useRedisPackage: true,
        keyPrefix: guardKeys.prefix(store, spec),
        points,
        duration: spec.durationSeconds,
      }),
      shardOf,
    );
  /** A count past its deadline is a `StoreDeadlineError`: a consume sent and not answered may still count. */
  const typed = <T>(work: Promise<T>, what: string, wrote: boolean) =>
    work.catch((reason: unknown) => {
      throw reason instanceof CommandTimeoutError
        ? deadlineError(`the send guard failed to ${what}`, reason, wrote)
        : reason;
    });
  const connected = (limiter: GuardRateLimiter): GuardRateLimiter => ({
    consume: async (key, points, options) => {
      await store.connect();
      return typed(limiter.consume(key, points, options), 'count a send', true);
    },
    reward: async (key, points, options) => {
      await store.connect();
      return typed(limiter.reward(key, points, options), 'give a send back', true);
    },
  });
  /** Each limit's part of the script's keys and arguments, made once per limit rather than once per send. */
  const parts = new WeakMap<GuardLimiterSpec, { keyPrefix: string; points: string; windowMs: string }>();
  const partsOf = (spec: GuardLimiterSpec) => {
    let made = parts.get(spec);
    if (made === undefined) {
      const windowMs = String(spec.durationSeconds * 1000);
      made = { keyPrefix: `${guardKeys.prefix(store, spec)}:`, points: String(spec.points), windowMs };
      parts.set(spec, made);
    }
    return made;
  };
  const client = store.client as RedisCommandClient & { readonly isOpen?: unknown; readonly isReady?: unknown };
  const consumeAll = async (
    counts: readonly GuardCount[],
    options?: { [key: string]: unknown },
    recipient?: RecipientCount,
  ): Promise<GuardRefusal | undefined> => {
    // A ready client needs no connecting (the usual case): the store's `connect` would only say so a little later.
    if (client.isReady !== true || client.isOpen !== true) await store.connect();
    const keys: string[] = [];
    const args: string[] = [];
    for (const { spec, key, points, shared } of counts) {
      const made = partsOf(spec);
      keys.push(made.keyPrefix + key);
      args.push(made.points, String(points), made.windowMs, shared ? 'shared' : 'own');
    }
    if (recipient !== undefined) {
      // As RedisFlowStore.consume counts it: the same key, window and envelope.
      keys.push(store.redisKey(limitRecordKey(recipient.key)));
      const window = Math.max(1, Math.ceil(recipient.windowMs));
      args.push(String(recipient.limit), String(Math.floor(recipient.now)), String(window), 'recipient');
      args.push(String(Date.now()));
    }
    const reply = await typed(
      deadline.run(() => countsScript.runOnKeys(client, keys, args), callOf(options)),
      'count a send',
      true,
    );
    if (reply === 0) return undefined;
    const [index, left] = Array.isArray(reply) ? reply.map(Number) : [];
    if (index !== undefined && index === counts.length && recipient !== undefined && left !== undefined)
      return { index, msBeforeNext: left };
    const refused = index === undefined ? undefined : counts[index];
    if (refused === undefined || left === undefined) throw new Error('the send guard got an unexpected answer');
    return { index: index!, msBeforeNext: left >= 0 ? left : refused.spec.durationSeconds * 1000 };
  };
  return {
    // On a cluster a send's counters have slots of their own: one script per count there.
    ...(isClusterClient(store.client)
      ? {}
      : {
          consumeAll: (counts, options) => consumeAll(counts, options),
          consumeWithRecipient: (counts, recipient, options) => consumeAll(counts, options, recipient),
        }),
    limiter(spec: GuardLimiterSpec): GuardRateLimiter {
      if (spec.name !== 'global' || !isClusterClient(store.client))
        return connected(counter(spec, spec.points, deadline));
      const count = Math.min(globalShards, spec.points);
      const shares = Array.from(
        { length: count },
        (_, shard) => Math.floor(spec.points / count) + (shard < spec.points % count ? 1 : 0),
      );
      const slots = store.client as HealableCluster;
      return connected(
        new SpreadBudget(
          shares.map((share) => counter(spec, share, shardDeadline)),
          (shard) => slots._slots.slots[keySlot(shardTags[shard]!)]?.master.address,
        ),
      );
    },
  };
}
