import { StoreError, type EventOutbox, type TakenEvent } from '@verikit/core';
import { eventOutboxKey } from '@verikit/core/internal';
import { CommandDeadline } from './command-deadline.js';
import type { RedisCommandClient } from './lua-script.js';
import { hostCommand, type RedisStoreHost } from './store-host.js';

/** KEYS: due, tries. ARGV: the due time, then the ids. An id already there keeps its due time and attempts. */
const addScript = `
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[i])
end
return 1
`;

/**
 * KEYS: due, tries. ARGV: now, the lease's end, the limit. Leases (moves to the lease's end) and counts an
 * attempt on each id due; returns id, attempt, id, attempt, …
 */
const takeScript = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local taken = {}
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], id)
  table.insert(taken, id)
  table.insert(taken, redis.call('HINCRBY', KEYS[2], id, 1))
end
return taken
`;

/** KEYS: due, tries. ARGV: the ids. */
const removeScript = `
for i = 1, #ARGV do
  redis.call('ZREM', KEYS[1], ARGV[i])
  redis.call('HDEL', KEYS[2], ARGV[i])
end
return 1
`;

/**
 * The event webhook's outbox in Redis, shared by every instance: a sorted set of event ids by due time and a
 * hash of their attempts, changed only by scripts so a take (which leases what it returns) is one step.
 */
export class RedisEventOutbox implements EventOutbox {
  readonly #host: RedisStoreHost;
  readonly #deadline: CommandDeadline;
  readonly #keys: string[];

  constructor(host: RedisStoreHost, commandTimeoutMs: number) {
    this.#host = host;
    this.#deadline = new CommandDeadline(commandTimeoutMs);
    this.#keys = [host.redisKey(eventOutboxKey('due')), host.redisKey(eventOutboxKey('tries'))];
  }

  async add(ids: readonly string[], dueAt: number): Promise<void> {
    if (ids.length > 0) await this.#run('add to the event outbox', addScript, [String(Math.floor(dueAt)), ...ids]);
  }

  async take(now: number, leaseMs: number, limit: number): Promise<TakenEvent[]> {
    const reply = await this.#run('take from the event outbox', takeScript, [
      String(Math.floor(now)),
      String(Math.floor(now + leaseMs)),
      String(limit),
    ]);
    if (!Array.isArray(reply)) throw new StoreError('the flow store gave an unexpected answer to an outbox take');
    const taken: TakenEvent[] = [];
    for (let index = 0; index + 1 < reply.length; index += 2)
      taken.push({ id: String(reply[index]), attempt: Number(reply[index + 1]) });
    return taken;
  }

  async retry(id: string, dueAt: number): Promise<void> {
    await this.#call('retry an outbox event', (client) =>
      client.eval("return redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[2])", {
        keys: [this.#keys[0]!],
        arguments: [String(Math.floor(dueAt)), id],
      }),
    );
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.#run('remove from the event outbox', removeScript, [...ids]);
  }

  #run(operation: string, script: string, args: string[]): Promise<unknown> {
    return this.#call(operation, (client) => client.eval(script, { keys: this.#keys, arguments: args }));
  }

  #call<T>(operation: string, work: (client: RedisCommandClient) => Promise<T>): Promise<T> {
    return hostCommand(this.#host, this.#deadline, operation, work);
  }
}
