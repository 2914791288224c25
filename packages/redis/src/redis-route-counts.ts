import type { RouteCountsV1, RouteOutcomeV1, RouteTallyV1 } from '@verikit/provider';
import { StoreError, VerikitError } from '@verikit/core';
import { safeStoreCause } from '@verikit/core/internal';
import { CommandDeadline } from './command-deadline.js';
import { LuaScript, type RedisCommandClient } from './lua-script.js';
import type { RedisFlowStore } from './redis-flow-store.js';

/** Options of {@link createRedisRouteCounts}. */
export interface RedisRouteCountsOptions {
  /** Keeps the counts on this store's connection and namespace: `<namespace>::route-counts:<route>`, a hash. */
  store: RedisFlowStore;
  /**
   * How long one command may wait for Redis. A read that takes longer lets the router route by its priors (it warns),
   * so a slow Redis never holds a start for long. Default 250 ms.
   */
  timeoutMs?: number;
}

/** A route's hash lives this many half-lives past its last count, then goes (its counts are worth 1/1024 by then). */
const retentionHalfLives = 10;

/**
 * One count on one member of one route, atomically: the member's field holds `sent,verified,at,delivered,seconds`
 * (the last two absent in fields written before they were kept); the sums are decayed from `at` to ARGV[3] (never
 * grown when an instance's clock is behind), then the outcome added. KEYS[1] the route's hash; ARGV: member, outcome
 * (`sent`, `delivered`, `verified`), now (ms), half-life (ms), the hash's time to live (ms), the seconds a verified
 * flow took from its first send (0 when unknown).
 */
const addScript = new LuaScript(`
local now = tonumber(ARGV[3])
local sent, verified, at, delivered, seconds = 0, 0, now, 0, 0
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if raw then
  local s, v, t, rest = string.match(raw, '^([^,]+),([^,]+),([^,]+)(.*)$')
  sent, verified, at = tonumber(s) or 0, tonumber(v) or 0, tonumber(t) or now
  local d, w = string.match(rest or '', '^,([^,]+),([^,]+)$')
  delivered, seconds = tonumber(d) or 0, tonumber(w) or 0
end
if now > at then
  local factor = math.pow(2, -(now - at) / tonumber(ARGV[4]))
  sent, verified, delivered, seconds, at = sent * factor, verified * factor, delivered * factor, seconds * factor, now
end
if ARGV[2] == 'sent' then sent = sent + 1
elseif ARGV[2] == 'delivered' then delivered = delivered + 1
else verified = verified + 1; seconds = seconds + (tonumber(ARGV[6]) or 0) end
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.6f,%.6f,%.0f,%.6f,%.3f', sent, verified, at, delivered, seconds))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`);

/** The commands these counts use besides the scripts. */
interface CountsClient extends RedisCommandClient {
  hGetAll(key: string): Promise<Record<string, string>>;
  sAdd(key: string, member: string): Promise<unknown>;
  sMembers(key: string): Promise<string[]>;
}

/**
 * A learning router's counts shared by every app instance through Redis (docs/routing.md): give it to
 * `createLearningRouter({ counts })` on each, and each routes by the flows of all. A start reads one hash (its
 * route's); a send, a delivery receipt and a verified flow each run one script on it. Each route is one key, so it runs on Redis Cluster
 * as on one node; the list of routes (for the table) is one set beside them.
 */
export function createRedisRouteCounts(options: RedisRouteCountsOptions): RouteCountsV1 {
  if (typeof options !== 'object' || options === null || options.store === undefined)
    throw new TypeError('createRedisRouteCounts needs the Redis flow store: createRedisRouteCounts({ store })');
  const { store } = options;
  const timeoutMs = options.timeoutMs ?? 250;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
    throw new TypeError('createRedisRouteCounts timeoutMs must be a whole number of ms, 1 or more');
  const deadline = new CommandDeadline(timeoutMs);
  const keyOf = (route: string) => store.redisKey(`route-counts:${route}`);
  const routesKey = store.redisKey('route-counts');
  const known = new Set<string>();
  const call = async <T>(operation: string, work: (client: CountsClient) => Promise<T>): Promise<T> => {
    try {
      await store.connect();
      return await deadline.run(() => work(store.client as unknown as CountsClient));
    } catch (error) {
      if (VerikitError.isInstance(error)) throw error;
      throw new StoreError(`the route counts failed to ${operation}`, { cause: safeStoreCause(error) });
    }
  };
  return {
    read: (route) =>
      call('read a route', async (client) => {
        const fields = await client.hGetAll(keyOf(route));
        const tallies: Record<string, RouteTallyV1> = {};
        for (const [member, raw] of Object.entries(fields)) {
          const [sent, verified, at, delivered = 0, verifySeconds = 0] = raw.split(',').map(Number);
          if ([sent, verified, at, delivered, verifySeconds].every((value) => Number.isFinite(value)))
            tallies[member] = { sent: sent!, verified: verified!, at: at!, delivered, verifySeconds };
        }
        return tallies;
      }),
    add: (route, member, outcome: RouteOutcomeV1, now, halfLifeMs, verifySeconds) =>
      call('count an outcome', async (client) => {
        const ttl = String(Math.ceil(halfLifeMs * retentionHalfLives));
        const seconds = outcome === 'verified' && Number.isFinite(verifySeconds) ? Math.max(0, verifySeconds!) : 0;
        const counted = addScript.run(client, keyOf(route), [
          member,
          outcome,
          String(now),
          String(halfLifeMs),
          ttl,
          String(seconds),
        ]);
        // The set of routes is written once per route and process; losing it loses only a line of the table.
        if (!known.has(route)) {
          known.add(route);
          await client.sAdd(routesKey, route);
        }
        await counted;
      }),
    routes: () => call('list the routes', (client) => client.sMembers(routesKey)),
  };
}
