import { createHash } from 'node:crypto';

/** The commands of a node-redis client (single node or cluster) this package uses. */
export interface RedisCommandClient {
  get(key: string): Promise<string | null | unknown>;
  set(key: string, value: string, options?: Record<string, unknown>): Promise<string | null | unknown>;
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
}

/**
 * A Lua script run with EVALSHA, falling back to EVAL when the server does not hold it yet
 * (`NOSCRIPT`: first use, a restart, `SCRIPT FLUSH`, a failover). EVAL also caches the script, so
 * the fallback happens once per server. Each script touches the keys passed in `KEYS`: one key, so it is valid on
 * Redis Cluster, except the send guard's counts of one send and a compare-and-set that writes route keys too, run so
 * on one node only.
 */
export class LuaScript {
  readonly source: string;
  readonly sha: string;

  constructor(source: string) {
    this.source = source;
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  run(client: RedisCommandClient, key: string, args: string[]): Promise<unknown> {
    return this.runOnKeys(client, [key], args);
  }

  /** {@link run} on several keys: on a cluster they must share one slot. */
  runOnKeys(client: RedisCommandClient, keys: string[], args: string[]): Promise<unknown> {
    const options = { keys, arguments: args };
    return client.evalSha(this.sha, options).catch((error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(this.source, options);
    });
  }
}

/**
 * Compare-and-set of one flow record, stored as a Keyv envelope `{"value":record,"expires":n}`.
 * KEYS[1] the record's key; ARGV[1] the expected version (0: no record may exist); ARGV[2] the new
 * envelope; ARGV[3] the TTL in ms, or '' for none. Returns 1 when written, 0 when the version differs.
 * With ARGV[4] (a channel) and ARGV[5] (a message), a write also publishes the message on the channel, with
 * `SPUBLISH` when ARGV[6] is `sharded`: a change and its publication are one command, never one without the other
 * (docs/decisions/1200-one-script-per-commit.md).
 * With a channel and an empty ARGV[5] (no message), the script first asks this server whether anybody follows the
 * channel (`PUBSUB NUMSUB`, or `PUBSUB SHARDNUMSUB` when sharded; any pattern subscription counts as a follower of
 * a classic channel): if so it writes nothing and returns 2, and the caller sends the same write again with the
 * view; if not it writes the record only. Publishing to nobody and not publishing are the same, and a script is
 * atomic: a follower that subscribed before its read either counted here or read this write
 * (docs/decisions/1400-no-view-for-a-flow-nobody-follows.md). ARGV[6] `unseen` (a classic channel whose flow's id
 * has reached nobody yet, so it has no subscriber) asks about pattern subscribers only
 * (docs/decisions/1830-a-start-s-own-commits-ask-only-for-pattern-subscribers.md).
 *
 * With more keys than the record's, KEYS[2..] are route keys and the last argument their value (a Keyv envelope of
 * the flow's id): written with the record, with its TTL, in the same script (a send's delivery receipt routes: one
 * round trip instead of two, decision 2010). One node only: on a cluster each key has a slot of its own.
 *
 * The version is read from the front of the envelope when the record was written by this package
 * (`{"value":{"version":n,` — see `encodeRecord`), and by decoding the JSON otherwise.
 */
export const compareAndSetScript = new LuaScript(`
local current = redis.call('GET', KEYS[1])
local version = 0
if current then
  local fast = string.match(current, '^{"value":{"version":(%d+),')
  if fast then
    version = tonumber(fast)
  else
    local ok, decoded = pcall(cjson.decode, current)
    if not ok or type(decoded) ~= 'table' or type(decoded.value) ~= 'table' or type(decoded.value.version) ~= 'number' then
      return redis.error_reply('VERIKIT_CORRUPT the stored flow record is not a Keyv envelope with a version')
    end
    version = decoded.value.version
  end
end
if version ~= tonumber(ARGV[1]) then
  return 0
end
if ARGV[5] == '' then
  if ARGV[6] == 'sharded' then
    if redis.call('PUBSUB', 'SHARDNUMSUB', ARGV[4])[2] > 0 then
      return 2
    end
  elseif ARGV[6] == 'unseen' then
    if redis.call('PUBSUB', 'NUMPAT') > 0 then
      return 2
    end
  elseif redis.call('PUBSUB', 'NUMSUB', ARGV[4])[2] > 0 or redis.call('PUBSUB', 'NUMPAT') > 0 then
    return 2
  end
end
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], ARGV[2])
  for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[#ARGV]) end
else
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[#ARGV], 'PX', ARGV[3]) end
end
if ARGV[5] and ARGV[5] ~= '' then
  redis.call(ARGV[6] == 'sharded' and 'SPUBLISH' or 'PUBLISH', ARGV[4], ARGV[5])
end
return 1
`);

/**
 * A Lua function: `takeUnit(key, now, limit, window, wall)` takes one unit of a fixed window stored as a Keyv envelope
 * `{"value":{"used":n,"resetAt":t},"expires":e}` (the shape the in-process store writes), the window on the engine's
 * clock (`now`), `wall` the writer's wall clock for Keyv's `expires`. Returns `allowed (0|1), used, resetAt`, and takes
 * nothing when refused. A counter that does not exist yet (a number's first send in its window, the usual case) is made
 * by one `SET NX PX` (decision 1716); one that does costs that `SET`, a `GET` and a `SET`. The store's limits and the
 * send guard's script (a send's counts and its number's limit in one run, decision 1760) both use it.
 */
export const takeUnitLua = `
local function takeUnit(key, now, limit, window, wall)
  local used = 0
  local resetAt = now + window
  if limit >= 1 and redis.call('SET', key, string.format('{"value":{"used":1,"resetAt":%d},"expires":%d}', resetAt, wall + window), 'PX', window, 'NX') then
    return 1, 1, resetAt
  end
  local current = redis.call('GET', key)
  if current then
    local ok, decoded = pcall(cjson.decode, current)
    if ok and type(decoded) == 'table' and type(decoded.value) == 'table'
      and type(decoded.value.used) == 'number' and type(decoded.value.resetAt) == 'number'
      and decoded.value.resetAt > now then
      used = decoded.value.used
      resetAt = decoded.value.resetAt
    end
  end
  if used >= limit then
    return 0, used, resetAt
  end
  used = used + 1
  local ttl = resetAt - now
  redis.call('SET', key, string.format('{"value":{"used":%d,"resetAt":%d},"expires":%d}', used, resetAt, wall + ttl), 'PX', ttl)
  return 1, used, resetAt
end
`;

/**
 * Takes one unit of a fixed window ({@link takeUnitLua}). KEYS[1] the counter; ARGV[1] now (the engine's clock);
 * ARGV[2] the limit; ARGV[3] the window in ms; ARGV[4] the writer's wall clock, for Keyv's `expires`.
 * Returns `{allowed (0|1), used, resetAt}`.
 */
export const consumeScript = new LuaScript(`${takeUnitLua}
local allowed, used, resetAt = takeUnit(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
return {allowed, used, resetAt}
`);
