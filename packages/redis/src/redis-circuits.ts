import {
  silentLogger,
  type CircuitClosedV1,
  type CircuitOpenedV1,
  type Logger,
  type ProbeClaimV1,
  type SharedCircuitStateV1,
  type SharedCircuitsV1,
} from '@verikit/provider';
import { StoreError, UsageError, VerikitError } from '@verikit/core';
import { safeStoreCause } from '@verikit/core/internal';
import { healerFor, isClusterClient } from './cluster-healer.js';
import { CommandDeadline } from './command-deadline.js';
import { LuaScript, type RedisCommandClient } from './lua-script.js';
import type { RedisFlowStore, RedisFlowStoreClient } from './redis-flow-store.js';
import { createSubscriberLink, type PubSubClient, type PubSubMode, type SubscriberLink } from './subscriber-link.js';
import { SubscriptionKeeper } from './subscription-keeper.js';

/** Options of {@link createRedisCircuits}. */
export interface RedisCircuitsOptions {
  /** Keeps the circuits on this store's connection and namespace: `<namespace>::circuit:<failover>:<member>`. */
  store: RedisFlowStore;
  /** Where failed reads and subscriptions are reported (a breaker warns of its own failed writes). Default: silent. */
  logger?: Logger;
  /** As the change bus's: `sharded` (default on a cluster) or `classic` (default on one node). Same on every instance. */
  pubSub?: PubSubMode;
  /**
   * How long one command may wait for Redis before the breaker goes on with its own process's state. Only a probe
   * claim is waited for by a call, once per `halfOpenAfterMs` at most. Default 1000 ms.
   */
  timeoutMs?: number;
  /** The connection to subscribe with. Default: a duplicate of the store's, as the change bus makes it. */
  subscriber?: RedisFlowStoreClient;
}

/** A stored circuit is kept this long past its last open, then forgotten (closed). */
const retentionMs = 86_400_000;

/**
 * One script per change of a member's circuit, on its one key: `{"openUntil":t,"probeUntil":t}` in Redis's own time
 * (`TIME`), so every instance sees one clock. ARGV: the operation (`read`, `open`, `reopen`, `claim`, `close`), a
 * duration in ms, the retention in ms. Returns the state after (`closed`, `open`, `half-open`), the ms left of it, 1
 * when the call changed it, and Redis's time.
 */
const circuitScript = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local op = ARGV[1]
local ms = tonumber(ARGV[2])
local state, left, openUntil = 'closed', 0, 0
if op == 'close' then
  return {'closed', 0, redis.call('DEL', KEYS[1]), now}
end
local raw = redis.call('GET', KEYS[1])
if raw then
  local ok, value = pcall(cjson.decode, raw)
  if ok and type(value) == 'table' then
    openUntil = tonumber(value.openUntil) or 0
    local probeUntil = tonumber(value.probeUntil) or 0
    if probeUntil > now then
      state, left = 'half-open', probeUntil - now
    else
      state, left = 'open', math.max(openUntil - now, 0)
    end
  end
end
if op == 'open' or op == 'reopen' then
  if op == 'open' and state ~= 'closed' then return {state, left, 0, now} end
  redis.call('SET', KEYS[1], cjson.encode({openUntil = now + ms, probeUntil = 0}), 'PX', ms + tonumber(ARGV[3]))
  return {'open', ms, 1, now}
end
if op == 'claim' and state == 'open' and left == 0 then
  redis.call('SET', KEYS[1], cjson.encode({openUntil = openUntil, probeUntil = now + ms}), 'KEEPTTL')
  return {'half-open', ms, 1, now}
end
return {state, left, 0, now}
`);

/** One `follow`: the members it wants and its listener. */
interface Follower {
  readonly members: ReadonlySet<string>;
  readonly listener: (member: string, state: SharedCircuitStateV1) => void;
}

/** Creates {@link RedisCircuits}; see its options. */
export function createRedisCircuits(options: RedisCircuitsOptions): RedisCircuits {
  return new RedisCircuits(options);
}

/**
 * The failover breakers' circuits shared through Redis (docs/providers/README.md, "Shared across instances"): give it
 * to `withFailover(members, { breaker: { shared } })` on every instance. A change (an open, a probe claimed, a
 * close) is one script on the member's key and one publish on the failover's channel, `<namespace>::circuits:<name>`;
 * every instance follows the channel on a dedicated connection and reads the circuits again after a lost one.
 * Ordinary provider calls never touch Redis. Each key and channel is one slot, so it runs on Redis Cluster as on one
 * node (sharded pub/sub there by default).
 */
export class RedisCircuits implements SharedCircuitsV1 {
  readonly #store: RedisFlowStore;
  readonly #publisher: PubSubClient;
  readonly #givenSubscriber: PubSubClient | undefined;
  readonly #logger: Logger;
  readonly #mode: PubSubMode;
  readonly #deadline: CommandDeadline;
  readonly #followers = new Map<string, Set<Follower>>();
  /** Per failover name: the first reads of its circuits, done once its subscription is live. */
  readonly #reads = new Map<string, Promise<void>>();
  readonly #onMessage = (message: string, channel: string): void => this.#receive(message, channel);
  #link: SubscriberLink | undefined;
  #keeper: SubscriptionKeeper | undefined;
  #stopWatching: (() => void) | undefined;
  #closed = false;

  constructor(options: RedisCircuitsOptions) {
    if (typeof options !== 'object' || options === null || options.store === undefined)
      throw new TypeError('createRedisCircuits needs the Redis flow store: createRedisCircuits({ store })');
    this.#store = options.store;
    this.#publisher = options.store.client as unknown as PubSubClient;
    this.#givenSubscriber = options.subscriber as unknown as PubSubClient | undefined;
    this.#logger = options.logger ?? silentLogger;
    const mode = options.pubSub ?? (isClusterClient(this.#publisher) ? 'sharded' : 'classic');
    if (mode !== 'classic' && mode !== 'sharded')
      throw new TypeError("createRedisCircuits pubSub must be 'classic' or 'sharded'");
    this.#mode = mode;
    const timeoutMs = options.timeoutMs ?? 1000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
      throw new TypeError('createRedisCircuits timeoutMs must be a whole number of ms, 1 or more');
    this.#deadline = new CommandDeadline(timeoutMs);
  }

  /** The Redis key of a member's circuit. */
  keyOf(group: string, member: string): string {
    return this.#store.redisKey(`circuit:${group}:${member}`);
  }

  /** The channel a failover's circuit changes are published on. */
  channelOf(group: string): string {
    return this.#store.redisKey(`circuits:${group}`);
  }

  follow(
    group: string,
    members: readonly string[],
    listener: (member: string, state: SharedCircuitStateV1) => void,
  ): () => void {
    if (this.#closed) throw new Error('the shared circuits are closed');
    const follower: Follower = { members: new Set(members), listener };
    const channel = this.channelOf(group);
    let followers = this.#followers.get(group);
    if (followers === undefined) {
      followers = new Set();
      this.#followers.set(group, followers);
      this.#subscriber().want(channel);
    }
    followers.add(follower);
    // Read once the subscription is live, so no change made meanwhile is missed.
    const read = this.#keeper!.live(channel)!.then(() => this.#readAll(group, [follower]));
    this.#reads.set(
      group,
      Promise.all([this.#reads.get(group), read]).then(() => undefined),
    );
    return () => {
      followers.delete(follower);
      if (followers.size > 0 || this.#followers.get(group) !== followers) return;
      this.#followers.delete(group);
      this.#reads.delete(group);
      this.#keeper?.drop(channel);
    };
  }

  async markOpen(group: string, member: string, openMs: number, afterProbe: boolean): Promise<CircuitOpenedV1> {
    const { state, changed } = await this.#run(group, member, afterProbe ? 'reopen' : 'open', openMs);
    if (changed) await this.#publish(group, member, state);
    return { opened: changed, state };
  }

  async claimProbe(group: string, member: string, leaseMs: number): Promise<ProbeClaimV1> {
    const { state, changed } = await this.#run(group, member, 'claim', leaseMs);
    if (changed) await this.#publish(group, member, state);
    return { claimed: changed, state };
  }

  async markClosed(group: string, member: string): Promise<CircuitClosedV1> {
    const { state, changed } = await this.#run(group, member, 'close', 1);
    const closed = { state: 'closed', ...(state.at === undefined ? {} : { at: state.at }) } as const;
    if (changed) await this.#publish(group, member, closed);
    return { closed: changed, state: closed };
  }

  /**
   * Resolves once the circuits of failover `group` are followed: Redis confirmed the subscription and they were
   * read. Rejects with a `StoreError` after `timeoutMs` (default 5000 ms), and with a `UsageError` when
   * nothing follows `group`.
   */
  subscribed(group: string, timeoutMs = 5000): Promise<void> {
    const read = this.#reads.get(group);
    if (read === undefined)
      return Promise.reject(
        new UsageError('subscribed(group) waits for a failover provider made with these shared circuits', {
          field: 'group',
        }),
      );
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreError(`Redis did not confirm the circuits' subscription within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    return Promise.race([read, late]).finally(() => clearTimeout(timer));
  }

  /** Stops following and closes the subscriber connection; the store's connection stays open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#followers.clear();
    this.#stopWatching?.();
    await this.#keeper?.close(1000);
    await this.#link?.close();
  }

  async #run(
    group: string,
    member: string,
    op: 'read' | 'open' | 'reopen' | 'claim' | 'close',
    ms: number,
  ): Promise<{ state: SharedCircuitStateV1; changed: boolean }> {
    const reply = await this.#call(`${op} a circuit`, (client) =>
      circuitScript.run(client, this.keyOf(group, member), [op, String(Math.max(1, Math.floor(ms))), `${retentionMs}`]),
    );
    if (!Array.isArray(reply) || reply.length !== 4)
      throw new StoreError('Redis gave an unexpected answer to a circuit script');
    const [name, left, changed, at] = reply as [string, number, number, number];
    const state: SharedCircuitStateV1 =
      name === 'open' || name === 'half-open'
        ? { state: name, remainingMs: Number(left), at: Number(at) }
        : { state: 'closed', at: Number(at) };
    return { state, changed: Number(changed) === 1 };
  }

  async #call<T>(operation: string, work: (client: RedisCommandClient) => Promise<T>): Promise<T> {
    try {
      if (this.#closed) throw new StoreError('the shared circuits are closed', { isRetryable: false });
      await this.#store.connect();
      return await this.#deadline.run(() => work(this.#store.client as unknown as RedisCommandClient));
    } catch (error) {
      if (VerikitError.isInstance(error)) throw error;
      throw new StoreError(`the shared circuits failed to ${operation}`, { cause: safeStoreCause(error) });
    }
  }

  async #publish(group: string, member: string, state: SharedCircuitStateV1): Promise<void> {
    const channel = this.channelOf(group);
    const message = JSON.stringify({ member, ...state });
    const publisher = this.#publisher;
    await this.#call('publish a circuit change', () =>
      this.#mode === 'sharded'
        ? publisher.sPublish!(channel, message)
        : isClusterClient(publisher)
          ? publisher.sendCommand!(channel, false, ['PUBLISH', channel, message])
          : publisher.publish(channel, message),
    );
  }

  /** Reads the circuits of `followers`' members and tells them (after a subscription or a resync). */
  async #readAll(group: string, followers: Iterable<Follower>): Promise<void> {
    for (const follower of followers) {
      for (const member of follower.members) {
        try {
          const { state } = await this.#run(group, member, 'read', 1);
          if (!this.#closed) follower.listener(member, state);
        } catch (error) {
          this.#logger.warn('verikit.redis.circuits.read-failed', { member, error: safeStoreCause(error).message });
        }
      }
    }
  }

  #receive(message: string, channel: string): void {
    for (const [group, followers] of this.#followers) {
      if (this.channelOf(group) !== channel) continue;
      let change: { member?: unknown; state?: unknown; remainingMs?: unknown; at?: unknown };
      try {
        change = JSON.parse(message) as typeof change;
      } catch {
        this.#logger.warn('verikit.redis.circuits.message-invalid', { group });
        return;
      }
      const { member, state, remainingMs, at } = change;
      if (typeof member !== 'string') return;
      const when = typeof at === 'number' ? { at } : {};
      const shared: SharedCircuitStateV1 | undefined =
        state === 'closed'
          ? { state, ...when }
          : (state === 'open' || state === 'half-open') && typeof remainingMs === 'number'
            ? { state, remainingMs, ...when }
            : undefined;
      if (shared === undefined) return;
      for (const follower of followers) if (follower.members.has(member)) follower.listener(member, shared);
    }
  }

  #subscriber(): SubscriptionKeeper {
    if (this.#keeper) return this.#keeper;
    const error = (cause: unknown) =>
      this.#logger.warn('verikit.redis.subscriber.error', { error: safeStoreCause(cause).message });
    const link = createSubscriberLink(this.#publisher, this.#givenSubscriber, this.#mode, {
      lost: () => this.#keeper?.lost(),
      error,
    });
    this.#link = link;
    if (link.checkSlots && isClusterClient(this.#publisher)) {
      this.#stopWatching = healerFor(this.#publisher).onSlots((reply, seed) => {
        link.checkSlots!(reply, seed).catch(error);
      });
    }
    this.#keeper = new SubscriptionKeeper({
      link,
      listener: this.#onMessage,
      attemptTimeoutMs: 2000,
      // Changes published while the connection was lost are missed: read every followed circuit again.
      resynced: (channels) => {
        for (const [group, followers] of this.#followers)
          if (channels.includes(this.channelOf(group))) void this.#readAll(group, followers);
      },
      failed: (_channel, cause) => error(cause),
    });
    return this.#keeper;
  }
}
