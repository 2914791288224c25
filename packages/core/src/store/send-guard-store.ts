/// <reference path="./rate-limiter-memory.d.ts" />
import type { RateLimiterAbstract, RateLimiterMemory } from 'rate-limiter-flexible';

/** The names of the guard's counted limits, as logs and the refusal message give them. */
export type GuardLimitName =
  | 'per-client'
  | 'per-prefix'
  | 'global'
  | 'wrong-references-per-number'
  | 'wrong-references'
  | 'budget-per-hour'
  | 'budget-per-day'
  | 'country-budget-per-hour'
  | 'country-budget-per-day';

/** What the guard asks a {@link SendGuardStore} for: one fixed-window counter. */
export interface GuardLimiterSpec {
  /** Which limit the counter is for: for logs. */
  readonly name: GuardLimitName;
  /** Prefix of every key of this limit (`guard:per-client`); a store may put its namespace in front. */
  readonly keyPrefix: string;
  /** Units per window. */
  readonly points: number;
  /** The window, in whole seconds (rate-limiter-flexible's unit). */
  readonly durationSeconds: number;
}

/**
 * The two calls of a rate-limiter-flexible limiter the guard makes. `consume` resolves when a unit
 * was taken and rejects with a `RateLimiterRes` (`msBeforeNext`) when none is left, having taken
 * nothing, or with an `Error` when the backend failed; `reward` gives a unit back. Their options are
 * `{ call }`, the engine call's `StoreCall` where the flow store opened one (the Redis guard counts
 * within the call's deadline).
 */
export type GuardRateLimiter = Pick<RateLimiterAbstract, 'consume' | 'reward'>;

/** One count of {@link SendGuardStore.consumeAll}: `points` units of `spec`'s counter for `key`. */
export interface GuardCount {
  /** The limit counted, as `limiter(spec)` was asked for. */
  readonly spec: GuardLimiterSpec;
  /** The counted key, as `limiter(spec).consume` would be given it. */
  readonly key: string;
  /** The units this send takes: 1, or its price in millionths for a budget. */
  readonly points: number;
  /**
   * One key for every sender (the global limit, a budget): it usually exists already, where a per-client or
   * per-prefix key is often new. A hint for the order of a store's commands, never for what is counted.
   */
  readonly shared: boolean;
}

/** The count {@link SendGuardStore.consumeAll} refused: its index in the counts, and when its window ends. */
export interface GuardRefusal {
  /** The refused count's index in the counts given. */
  readonly index: number;
  /** How long until its window ends, in ms. */
  readonly msBeforeNext: number;
}

/**
 * One unit of a recipient's send limit (`maxSendsPerHour`), the flow store's own counter (`FlowStore.consume`), that
 * the flow store's guard store may take in the same step as a send's counts ({@link SendGuardStore.consumeWithRecipient}).
 */
export interface RecipientCount {
  /** The counter's store key, as `FlowStore.consume` is given it (`limit:sends:…`). */
  readonly key: string;
  /** Units per window. */
  readonly limit: number;
  /** The fixed window, in ms. */
  readonly windowMs: number;
  /** The engine's clock: the window is on it, as `FlowStore.consume`'s. */
  readonly now: number;
}

/**
 * Where the guard counts. One in memory counts for one process; one on Redis
 * (`createRedisSendGuard` of `@verikit/redis`) for every instance sharing it. A flow store that can
 * host the counts offers one through `FlowStore.sendGuardStore`, and the engine uses it by default.
 */
export interface SendGuardStore {
  /** Returns the counter for `spec`; the same spec may be asked for again and should count on the same units. */
  limiter(spec: GuardLimiterSpec): GuardRateLimiter;
  /**
   * Optional: takes every count in one step, all or none, on the same units as the limiters' (a limiter's `reward`
   * gives one back). Resolves with undefined when every count was taken, or with the first refused count, having
   * taken nothing; rejects when the backend failed. Without it the guard consumes the limiters one by one. The Redis
   * guard on one node has it: one script run per send instead of one per limit. Its options are the limiters'
   * (`{ call }`).
   */
  consumeAll?(counts: readonly GuardCount[], options?: { [key: string]: unknown }): Promise<GuardRefusal | undefined>;
  /**
   * Optional, and asked of the guard store its flow store's `sendGuardStore()` returned only: {@link consumeAll}, and
   * after the counts one unit of `recipient`, the flow store's own counter, all in one step, all or none. A refusal of
   * the recipient's limit has the index `counts.length` and the time left in its window. The Redis guard on one node
   * has it: a send's counts and its number's limit are one script run (decision 1760).
   */
  consumeWithRecipient?(
    counts: readonly GuardCount[],
    recipient: RecipientCount,
    options?: { [key: string]: unknown },
  ): Promise<GuardRefusal | undefined>;
}

/**
 * rate-limiter-flexible's memory limiter, imported on the first count rather than with the engine (a process that
 * never sends pays nothing for it; decision 1361): its module alone, since the package's index loads every backend
 * it supports (decision 1220).
 */
let memoryLimiterClass: Promise<typeof RateLimiterMemory> | undefined;
function loadMemoryLimiter(): Promise<typeof RateLimiterMemory> {
  memoryLimiterClass ??= import('rate-limiter-flexible/lib/RateLimiterMemory.js').then((module) => module.default);
  return memoryLimiterClass;
}

/**
 * Counts in this process's memory: the default when the flow store offers no shared counts. Engines
 * given the same one share their counts (for the same limit, points and window).
 */
export function memorySendGuardStore(): SendGuardStore {
  const limiters = new Map<string, GuardRateLimiter>();
  return {
    limiter({ keyPrefix, points, durationSeconds }) {
      const id = `${keyPrefix}/${points}/${durationSeconds}`;
      let limiter = limiters.get(id);
      if (limiter === undefined) {
        let created: Promise<RateLimiterMemory> | undefined;
        /** The counter once made: a count then calls it at once, without waiting on its promise. */
        let made: RateLimiterMemory | undefined;
        const counter = () => {
          created ??= loadMemoryLimiter().then((Limiter) => {
            made = new Limiter({ keyPrefix, points, duration: durationSeconds });
            return made;
          });
          return created;
        };
        // rate-limiter-flexible counts a refused consume too: it is given back at once, so a refusal takes nothing.
        const taken = (counts: RateLimiterMemory, key: string | number, units?: number) =>
          counts.consume(key, units).catch(async (reason: unknown) => {
            if (!(reason instanceof Error)) await counts.reward(key, units);
            throw reason;
          });
        limiter = {
          consume: (key, units) =>
            made === undefined ? counter().then((counts) => taken(counts, key, units)) : taken(made, key, units),
          reward: async (key, given) => (await counter()).reward(key, given),
        };
        limiters.set(id, limiter);
      }
      return limiter;
    },
  };
}
