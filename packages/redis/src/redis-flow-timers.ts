import { StoreError, type FlowTimers, type TakenTimer } from '@verikit/core';
import { flowTimersKey } from '@verikit/core/internal';
import { CommandDeadline } from './command-deadline.js';
import { LuaScript } from './lua-script.js';
import { hostCommand, type RedisStoreHost } from './store-host.js';

/**
 * How many sorted sets the timers are spread over. Fixed: a timer is found in the shard its flow id names, so
 * changing it would strand the timers already scheduled.
 */
const shards = 8;

/** KEYS: the shard. ARGV: due time, flow id. Sets the due time unless the timer is due sooner already. */
const scheduleScript = new LuaScript(`
local current = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not current or tonumber(ARGV[1]) < tonumber(current) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
end
return 1
`);

/** KEYS: the shard. ARGV: now, the lease's end, the limit. Moves each due timer to the lease's end; returns their ids. */
const takeScript = new LuaScript(`
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id)
end
return ids
`);

/** KEYS: the shard. ARGV: flow id, the lease's end, the next due time or ''. Only while the timer stands at the lease's end. */
const settleScript = new LuaScript(`
local current = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not current or tonumber(current) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
end
return 1
`);

/** The shard of a flow id: a string hash, the same on every instance. */
function shardOf(flowId: string): number {
  let hash = 5381;
  for (let index = 0; index < flowId.length; index += 1) hash = ((hash * 33) ^ flowId.charCodeAt(index)) >>> 0;
  return hash % shards;
}

/**
 * The flows' timers in Redis, shared by every instance: a few sorted sets of flow ids by due time, a flow's timer in
 * the one its id names, each with its own hash tag so that on Redis Cluster they spread over slots and masters and
 * every script touches one key (docs/decisions/1560-durable-flow-timers.md). A take moves what it returns to its
 * lease's end, in one script per shard.
 */
export class RedisFlowTimers implements FlowTimers {
  readonly #host: RedisStoreHost;
  readonly #deadline: CommandDeadline;
  readonly #keys: string[];

  constructor(host: RedisStoreHost, commandTimeoutMs: number) {
    this.#host = host;
    this.#deadline = new CommandDeadline(commandTimeoutMs);
    this.#keys = Array.from({ length: shards }, (_, shard) => host.redisKey(flowTimersKey(shard)));
  }

  async schedule(flowId: string, dueAt: number): Promise<void> {
    await this.#run('schedule a timer', scheduleScript, this.#keyOf(flowId), [String(Math.floor(dueAt)), flowId]);
  }

  async take(now: number, leaseMs: number, limit: number): Promise<TakenTimer[]> {
    const leasedUntil = Math.floor(now + leaseMs);
    const taken: TakenTimer[] = [];
    for (const key of this.#keys) {
      if (taken.length >= limit) break;
      const reply = await this.#run('take timers', takeScript, key, [
        String(Math.floor(now)),
        String(leasedUntil),
        String(limit - taken.length),
      ]);
      if (!Array.isArray(reply)) throw new StoreError('the flow store gave an unexpected answer to a timer take');
      for (const flowId of reply) taken.push({ flowId: String(flowId), leasedUntil });
    }
    return taken;
  }

  async settle(taken: TakenTimer, next: number | undefined): Promise<void> {
    await this.#run('settle a timer', settleScript, this.#keyOf(taken.flowId), [
      taken.flowId,
      String(taken.leasedUntil),
      next === undefined ? '' : String(Math.floor(next)),
    ]);
  }

  #keyOf(flowId: string): string {
    return this.#keys[shardOf(flowId)]!;
  }

  #run(operation: string, script: LuaScript, key: string, args: string[]): Promise<unknown> {
    return hostCommand(this.#host, this.#deadline, operation, (client) => script.run(client, key, args));
  }
}
