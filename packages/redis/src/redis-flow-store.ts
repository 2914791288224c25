import KeyvRedis from '@keyv/redis';
import {
  RecordSchemaError,
  StoreError,
  VerikitError,
  type FlowRecord,
  type FlowStore,
  type FlowView,
  type LimitResult,
  type SendGuardStore,
  type EventOutbox,
  type FlowTimers,
  type StoreCall,
} from '@verikit/core';
import { claimRecordKey, flowRecordKey, limitRecordKey, routeRecordKey, safeStoreCause } from '@verikit/core/internal';
import type Keyv from 'keyv';
import { healerFor, isClusterClient, type ClusterHealer } from './cluster-healer.js';
import { CallBudget } from './call-budget.js';
import { CommandDeadline, CommandTimeoutError, deadlineError } from './command-deadline.js';
import { decodeEnvelope, encodeEnvelope, redisTtl } from './keyv-envelope.js';
import { decodeRecord, encodeCommit, encodeRecord } from './record-encoding.js';
import { compareAndSetScript, consumeScript, type RedisCommandClient } from './lua-script.js';
import { createRedisSendGuard } from './redis-send-guard.js';
import { RedisEventOutbox } from './redis-event-outbox.js';
import { RedisFlowTimers } from './redis-flow-timers.js';
import { defaultCommandTimeoutMs, defaultConnectTimeoutMs } from './redis-connection.js';

/** The Redis client under a {@link RedisFlowStore}: `keyvRedis.client`, a node-redis client. */
export type RedisFlowStoreClient = KeyvRedis<unknown>['client'];

/** Options of the {@link RedisFlowStore} constructor. */
export interface RedisFlowStoreOptions {
  /** How long to wait for a connection before a call fails. Default 2000 ms. */
  connectTimeoutMs?: number;
  /** How long the commands of one engine call may wait for Redis in all before it fails. Default 5000 ms; 0 turns it off. */
  commandTimeoutMs?: number;
}

/** The answer of a compare-and-set whose question Redis refused to run (no write happened). */
const unasked = Symbol('unasked');
/** A Redis user whose ACL lets it publish but not ask `PUBSUB`: the script stopped before writing anything. */
const refusedPubSub = (error: unknown) =>
  error instanceof Error && /^NOPERM|can't run this command/.test(error.message);
/** The compare-and-set script's answer (1 written, 2 followed) as `compareAndSetUnlessFollowed` says it. */
const outcomeOf = (reply: unknown) =>
  reply === 1 ? 'written' : reply === 2 ? 'followed' : reply === unasked ? 'unasked' : 'conflict';

/**
 * A {@link FlowStore} in Redis, shared by any number of processes. Records are written as Keyv
 * writes them, through the Keyv given (its `@keyv/redis` adapter's namespace and key prefix, a JSON
 * serializer), so `store.keyv.get('flow:<id>')` returns the record. Compare-and-set and the limit are
 * one Lua script each on the adapter's own client; claims are `SET NX PX`. Every key a call touches
 * is a single key, so the store runs on Redis Cluster as on one node.
 *
 * Failures throw a `StoreError` (`isRetryable: true`) at once: a missing record is `undefined`, an
 * outage never is. A record that cannot be decoded is a `RecordSchemaError`.
 */
export class RedisFlowStore implements FlowStore {
  /** The Keyv over the `@keyv/redis` adapter: read any record with `keyv.get('flow:<id>')`. */
  readonly keyv: Keyv;
  /** The `@keyv/redis` adapter. */
  readonly adapter: KeyvRedis<unknown>;
  readonly #connectTimeoutMs: number;
  readonly #deadline: CommandDeadline;
  readonly #prefix: string;
  /** On a cluster client: refreshes its slot map after a node is lost, so a promoted replica is found. */
  readonly #healer: ClusterHealer | undefined;
  #connecting: Promise<void> | undefined;
  #closed = false;
  #guardStore: SendGuardStore | undefined;
  #outbox: EventOutbox | undefined;
  #timers: FlowTimers | undefined;

  /**
   * @param keyv A Keyv whose store is a `@keyv/redis` adapter. Its serializer is set to JSON and
   *   `throwOnErrors` is set on it and on the adapter. Create the adapter's client with
   *   `disableOfflineQueue: true`, or calls made during an outage wait for Redis instead of failing;
   *   {@link createRedisStore} does this for you.
   */
  constructor(keyv: Keyv, options: RedisFlowStoreOptions = {}) {
    const adapter = keyv.store as unknown;
    if (!(adapter instanceof KeyvRedis))
      throw new TypeError('RedisFlowStore needs a Keyv whose store is a @keyv/redis adapter');
    keyv.serialize = JSON.stringify;
    keyv.deserialize = JSON.parse;
    keyv.throwOnErrors = true;
    adapter.throwOnErrors = true;
    adapter.throwOnConnectError = true;
    // Keyv re-emits adapter errors; with no listener they would be dropped, which is what we want:
    // every failure also reaches the caller as a StoreError.
    keyv.on('error', () => {});
    this.keyv = keyv;
    this.adapter = adapter;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? defaultConnectTimeoutMs;
    this.#deadline = new CommandDeadline(options.commandTimeoutMs ?? defaultCommandTimeoutMs);
    const keyvPrefix = keyv.useKeyPrefix && keyv.namespace ? `${keyv.namespace}:` : '';
    this.#prefix = adapter.createKeyPrefix(keyvPrefix, adapter.namespace);
    this.#healer = isClusterClient(adapter.client) ? healerFor(adapter.client) : undefined;
  }

  /** The node-redis client the scripts run on (the adapter's own). */
  get client(): RedisFlowStoreClient {
    return this.adapter.client;
  }

  /** The Redis key of a Keyv key, as the adapter names it: `<namespace>::flow:<id>`. */
  redisKey(keyvKey: string): string {
    return this.#prefix + keyvKey;
  }

  async getFlow(id: string, call?: StoreCall): Promise<FlowRecord | undefined> {
    const raw = await this.#call('read a flow', (client) => client.get(this.redisKey(flowRecordKey(id))), false, call);
    return decodeRecord(raw);
  }

  /**
   * `routes`: route keys (as {@link setRoute} names them) pointed at the record's flow by the same script when it
   * writes, with the record's time to live: one node only (on a cluster they have slots of their own; decision 2010).
   */
  async compareAndSetFlow(
    record: FlowRecord,
    expectedVersion: number,
    ttlMs: number,
    call?: StoreCall,
    routes?: readonly string[],
  ): Promise<boolean> {
    const ttl = redisTtl(ttlMs);
    if (expectedVersion === 0 && routes === undefined) return this.#create(record, ttl, call);
    const envelope = encodeRecord(record, ttl);
    return (await this.#compareAndSet(record, expectedVersion, ttl, envelope, [], call, undefined, routes)) === 1;
  }

  /**
   * A new record (no record may exist): `SET NX PX`, one command and no script (decision 1716). When the key is
   * taken, it is read: a value that is not a record is a `RecordSchemaError`, as in the script, never a flow that
   * seems absent.
   */
  async #create(record: FlowRecord, ttl: number | undefined, call: StoreCall | undefined): Promise<boolean> {
    const [key, envelope] = [this.redisKey(flowRecordKey(record.id)), encodeRecord(record, ttl)];
    const options =
      ttl === undefined ? { condition: 'NX' } : { condition: 'NX', expiration: { type: 'PX', value: ttl } };
    const reply = await this.#call('write a flow', (client) => client.set(key, envelope, options), true, call);
    if (reply === 'OK') return true;
    await this.getFlow(record.id, call);
    return false;
  }

  /**
   * {@link compareAndSetFlow} that, when it writes, publishes `view` on `channel` in the same script (`SPUBLISH`
   * when `sharded`), the record and the view serialized together: how a `RedisChangeBus` made with this
   * store commits a change on one node. `routes`: as {@link compareAndSetFlow}'s.
   */
  async compareAndSetAndPublish(
    record: FlowRecord,
    expectedVersion: number,
    ttlMs: number,
    publish: { channel: string; sharded: boolean; view: FlowView },
    call?: StoreCall,
    routes?: readonly string[],
  ): Promise<boolean> {
    const ttl = redisTtl(ttlMs);
    const { envelope, message } = encodeCommit(record, ttl, publish.view);
    const channel = [publish.channel, message, publish.sharded ? 'sharded' : 'classic'];
    return (await this.#compareAndSet(record, expectedVersion, ttl, envelope, channel, call, undefined, routes)) === 1;
  }

  /**
   * {@link compareAndSetFlow} unless anybody follows `channel` on this server (a subscriber of the channel, `SSUBSCRIBE`
   * when `sharded`; for a classic channel, any pattern subscriber too), asked in the same script: `written` (the record
   * only, nothing published), `conflict` (the version differs), or `followed` (nothing written: send the write again
   * with the view, {@link compareAndSetAndPublish}), or `unasked` (nothing written: the Redis user's ACL does not allow
   * `PUBSUB`; send it with the view). How a `RedisChangeBus` made with this store commits a change of a
   * flow nobody follows without serializing or sending its view (docs/decisions/1400-no-view-for-a-flow-nobody-follows.md).
   * A new record (`expectedVersion` 0) is not asked about: a flow's id is unknown to anybody before it is first written,
   * so no follower can have subscribed to it (decision 1716); it is written as {@link compareAndSetFlow} writes it.
   * `unseen`: the engine says the flow's id has reached nobody yet (a start under way), so no subscriber of its channel
   * can exist: only pattern subscribers are asked about (`PUBSUB NUMPAT`), and with sharded pub/sub, which has no
   * patterns, nobody (decision 1830). `routes`: as {@link compareAndSetFlow}'s, written only with the record.
   */
  compareAndSetUnlessFollowed(
    record: FlowRecord,
    expectedVersion: number,
    ttlMs: number,
    followers: { channel: string; sharded: boolean; unseen?: boolean },
    call?: StoreCall,
    routes?: readonly string[],
  ): Promise<'written' | 'conflict' | 'followed' | 'unasked'> {
    const ttl = redisTtl(ttlMs);
    if (expectedVersion === 0 && routes === undefined)
      return this.#create(record, ttl, call).then((won) => outcomeOf(won ? 1 : 0));
    const envelope = encodeRecord(record, ttl);
    if (followers.unseen === true && followers.sharded)
      return this.#compareAndSet(record, expectedVersion, ttl, envelope, [], call, undefined, routes).then(outcomeOf);
    const mode = followers.sharded ? 'sharded' : followers.unseen === true ? 'unseen' : 'classic';
    const channel = [followers.channel, '', mode];
    return this.#compareAndSet(record, expectedVersion, ttl, envelope, channel, call, refusedPubSub, routes).then(
      outcomeOf,
    );
  }

  /**
   * The compare-and-set script on `record`'s key with `envelope`, and the channel's arguments (lua-script.ts). An error
   * `refused` accepts is answered as {@link unasked}. `routes`: route keys the script points at the flow with the record.
   */
  #compareAndSet(
    record: FlowRecord,
    expectedVersion: number,
    ttl: number | undefined,
    envelope: string,
    channel: string[],
    call: StoreCall | undefined,
    refused: ((error: unknown) => boolean) | undefined,
    routes: readonly string[] | undefined,
  ): Promise<unknown> {
    const key = this.redisKey(flowRecordKey(record.id));
    const args = [String(expectedVersion), envelope, ttl === undefined ? '' : String(ttl), ...channel];
    const keys = [key];
    if (routes !== undefined && routes.length > 0) {
      for (const route of routes) keys.push(this.redisKey(routeRecordKey(route)));
      args.push(encodeEnvelope(record.id, ttl));
    }
    return this.#call(
      'write a flow',
      (client) => compareAndSetScript.runOnKeys(client, keys, args),
      true,
      call,
      refused,
    );
  }

  async getRoute(key: string, call?: StoreCall): Promise<string | undefined> {
    const raw = await this.#call(
      'read a route',
      (client) => client.get(this.redisKey(routeRecordKey(key))),
      false,
      call,
    );
    try {
      const value = decodeEnvelope<unknown>(raw as string | null);
      return typeof value === 'string' ? value : undefined;
    } catch (error) {
      throw new RecordSchemaError('a stored route is not a Keyv envelope', { cause: error });
    }
  }

  async setRoute(key: string, flowId: string, ttlMs: number, call?: StoreCall): Promise<void> {
    const ttl = redisTtl(ttlMs);
    await this.#call(
      'write a route',
      (client) =>
        client.set(
          this.redisKey(routeRecordKey(key)),
          encodeEnvelope(flowId, ttl),
          ttl === undefined ? undefined : { expiration: { type: 'PX', value: ttl } },
        ),
      true,
      call,
    );
  }

  async claim(key: string, ttlMs: number, call?: StoreCall): Promise<boolean> {
    const ttl = redisTtl(ttlMs) ?? 1;
    const reply = await this.#call(
      'claim a key',
      (client) =>
        client.set(this.redisKey(claimRecordKey(key)), encodeEnvelope(1, ttl), {
          condition: 'NX',
          expiration: { type: 'PX', value: ttl },
        }),
      true,
      call,
    );
    return reply === 'OK';
  }

  async consume(key: string, limit: number, windowMs: number, now: number, call?: StoreCall): Promise<LimitResult> {
    const window = Math.max(1, Math.ceil(windowMs));
    const reply = await this.#call(
      'update a limit',
      (client) =>
        consumeScript.run(client, this.redisKey(limitRecordKey(key)), [
          String(Math.floor(now)),
          String(limit),
          String(window),
          String(Date.now()),
        ]),
      true,
      call,
    );
    if (!Array.isArray(reply) || reply.length !== 3)
      throw new StoreError('the flow store gave an unexpected answer to a limit update');
    const [allowed, used, resetAt] = reply.map(Number) as [number, number, number];
    return { allowed: allowed === 1, used, resetAt };
  }

  /** The send guard's counts on this store's connection and namespace, shared by every instance (docs/abuse.md). */
  sendGuardStore(): SendGuardStore {
    this.#guardStore ??= createRedisSendGuard({ store: this, commandTimeoutMs: this.#deadline.timeoutMs });
    return this.#guardStore;
  }

  /** The event webhook's outbox on this store's connection and namespace, shared by every instance. */
  eventOutbox(): EventOutbox {
    this.#outbox ??= new RedisEventOutbox(this, this.#deadline.timeoutMs);
    return this.#outbox;
  }

  /** The flows' timers on this store's connection and namespace, shared by every instance (docs/plans.md). */
  flowTimers(): FlowTimers {
    this.#timers ??= new RedisFlowTimers(this, this.#deadline.timeoutMs);
    return this.#timers;
  }

  /**
   * Opens one engine call: the engine passes what this returns with each of the call's commands (the send guard's
   * counts included), and they share one deadline, `commandTimeoutMs` of Redis time in all; past it a command fails
   * with a `StoreDeadlineError`, and none is sent. A command made outside a call has `commandTimeoutMs` to itself.
   */
  openCall(): StoreCall {
    return new CallBudget(this.#deadline.timeoutMs);
  }

  /**
   * Connects now rather than on first use, so a misconfigured URL fails at start-up. Throws a
   * `StoreError` when Redis cannot be reached within the connect timeout.
   */
  async connect(): Promise<void> {
    await this.#call('connect', async () => undefined);
  }

  /** Closes the connection once the commands in flight are answered. The store cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#healer?.close();
    if (this.client.isOpen) await this.client.close();
  }

  /** Drops the connection at once, failing the commands in flight. The store cannot be used afterwards. */
  async disconnect(): Promise<void> {
    this.#closed = true;
    this.#healer?.close();
    if (this.client.isOpen) this.client.destroy();
  }

  /**
   * Runs one command under its deadline, or its engine call's (`call`); `writes`: the command writes (a timeout
   * leaves its outcome unknown). On an open connection the command is sent at once, without an async frame of its own.
   * An error `refused` accepts is answered as {@link unasked} (in the same handler as the failures: one promise).
   */
  #call<T>(
    operation: string,
    work: (client: RedisCommandClient) => Promise<T>,
    writes = false,
    call?: StoreCall,
    refused?: (error: unknown) => boolean,
  ): Promise<T> {
    const client = this.client;
    if (this.#closed || this.#connecting !== undefined || !client.isOpen)
      return this.#callConnecting(operation, work, writes, call, refused);
    // Open (ready, or reconnecting: with the offline queue off the command then fails at once with
    // ClientOfflineError, reported as a StoreError). The command is sent when the deadline lets it: a timeout that
    // says it was not sent is a write that did not happen.
    return this.#deadline
      .run(() => work(client as unknown as RedisCommandClient), call)
      .catch((error: unknown) => (refused?.(error) ? (unasked as T) : this.#failure(operation, error, writes)));
  }

  /** {@link #call} when the store is closed, or must connect (or wait for a connection) first. */
  async #callConnecting<T>(
    operation: string,
    work: (client: RedisCommandClient) => Promise<T>,
    writes: boolean,
    call: StoreCall | undefined,
    refused: ((error: unknown) => boolean) | undefined,
  ): Promise<T> {
    let sent = false;
    try {
      if (this.#closed) throw new StoreError('the flow store is closed', { isRetryable: false });
      const client = this.client;
      return await this.#deadline.run(async () => {
        if (this.#connecting) await this.#connecting;
        else if (!client.isOpen) await this.#connect();
        sent = true;
        return work(client as unknown as RedisCommandClient);
      }, call);
    } catch (error) {
      if (sent && refused?.(error)) return unasked as T;
      // A deadline passed while connecting: the command was never sent.
      return this.#failure(operation, error, writes && sent);
    }
  }

  /** The error a failed command is to its caller; `wrote`: the command writes and was sent. */
  #failure(operation: string, error: unknown, wrote: boolean): never {
    if (VerikitError.isInstance(error)) throw error;
    // On a cluster, a failed call may be a lost master: look for its promoted replica.
    if (!(error instanceof CommandTimeoutError) || error.sent) this.#healer?.poke();
    if (error instanceof Error && error.message.startsWith('VERIKIT_CORRUPT')) {
      throw new RecordSchemaError('a stored flow record is not a Keyv envelope with a version', { cause: error });
    }
    // The driver's error can hold the connection URL and its password: the cause keeps only its class and code.
    if (error instanceof CommandTimeoutError)
      throw deadlineError(`the flow store failed to ${operation}`, error, wrote);
    throw new StoreError(`the flow store failed to ${operation}`, { cause: safeStoreCause(error) });
  }

  /** One connection attempt shared by every caller, bounded by the connect timeout. */
  #connect(): Promise<void> {
    this.#connecting ??= (async () => {
      const client = this.client;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no connection to Redis within ${this.#connectTimeoutMs} ms`)),
          this.#connectTimeoutMs,
        );
      });
      try {
        await Promise.race([client.connect(), timeout]);
      } catch (error) {
        // A client still retrying (a custom reconnect strategy) is stopped, so the next call starts afresh.
        if (client.isOpen) client.destroy();
        throw error;
      } finally {
        clearTimeout(timer);
        this.#connecting = undefined;
      }
    })();
    return this.#connecting;
  }
}
