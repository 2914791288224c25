import { silentLogger } from '@verikit/provider';
import {
  StoreError,
  UsageError,
  type FlowChangeBus,
  type FlowListener,
  type FlowRecord,
  type FlowStore,
  type FlowView,
  type Logger,
  type PublishingWrite,
  type StoreCall,
} from '@verikit/core';
import { changeChannelPrefix, RecentlyUsed, safeStoreCause } from '@verikit/core/internal';
import { healerFor, isClusterClient } from './cluster-healer.js';
import type { RedisFlowStore, RedisFlowStoreClient } from './redis-flow-store.js';
import { createSubscriberLink, type PubSubClient, type PubSubMode, type SubscriberLink } from './subscriber-link.js';
import { SubscriptionKeeper } from './subscription-keeper.js';

/** Options of {@link createRedisChangeBus} and the {@link RedisChangeBus} constructor. */
export interface RedisChangeBusOptions {
  /**
   * Publishes through this store's connection, and names channels after its namespace. On a cluster the bus opens this
   * connection with its first subscription (if nothing did): the slot-map checks made on it are what move the
   * subscriptions after a failover, in a process that never reads a flow too.
   */
  store?: RedisFlowStore;
  /** The client to publish with, when no `store` is given (a connected node-redis client). */
  publisher?: RedisFlowStoreClient;
  /**
   * The dedicated connection for SUBSCRIBE. Default: a duplicate of the publisher's connection that
   * reconnects with backoff (on a cluster: a duplicate cluster client that opens only pub/sub
   * connections). The bus connects it before subscribing, retries what failed, and resubscribes
   * everything after a lost connection.
   */
  subscriber?: RedisFlowStoreClient;
  /**
   * `sharded` publishes with `SPUBLISH` and subscribes with `SSUBSCRIBE` (Redis 7+): on a cluster a
   * flow's changes go to the one shard that owns its channel instead of to every node. `classic`
   * uses `PUBLISH`/`SUBSCRIBE`, which every Redis has. Default: `sharded` on a cluster client,
   * `classic` on a single node. Every instance must use the same mode.
   */
  pubSub?: PubSubMode;
  /** Channel prefix when no `store` is given: channels are `<namespace>::changes:<flowId>`. Default `verikit`. */
  namespace?: string;
  /** Where failed publishes, failed subscriptions and throwing listeners are reported. Default: silent. */
  logger?: Logger;
  /**
   * Called when the subscriber connection is back after a loss (on a cluster: once the subscriptions
   * are live again, on the promoted replica after a failover), with the flows that have listeners
   * here. Messages published meanwhile are lost (pub/sub is at-most-once): re-read those flows
   * (`verikit.get`) and hand the views to your listeners.
   */
  onResync?: (flowIds: readonly string[]) => void;
  /**
   * How long {@link RedisChangeBus.subscribed} waits for Redis to confirm a subscription before it
   * rejects with a `StoreError` (Redis unreachable: the subscription is retried and takes effect when
   * Redis returns). Also bounds how long `close()` waits for subscriptions in flight. Default 5000 ms;
   * 0 turns it off.
   */
  subscribeTimeoutMs?: number;
  /**
   * Publish every committed change, even of a flow nobody follows. By default, on one node, a commit of a flow with no
   * listener on this instance asks Redis in its compare-and-set script whether any instance subscribes to the flow's
   * channel, and publishes (and serializes) the view only then
   * (docs/decisions/1400-no-view-for-a-flow-nobody-follows.md). Redis counts the subscribers of the server it runs
   * on: set this when followers subscribe elsewhere (a replica, a proxy that holds the subscriptions). Default: false
   * when the bus makes its own subscriber connection (a duplicate of the store's), true when `subscriber` is given.
   */
  publishEveryChange?: boolean;
  /**
   * How long, after a commit found a flow followed on another instance, the flow's commits carry the view without
   * asking Redis again (asking costs a second script run when the answer is yes). A hint only: whether a change is
   * published never depends on it. Default 10000 ms; 0 asks on every commit.
   */
  followedHintMs?: number;
}

const defaultSubscribeTimeoutMs = 5000;
const defaultFollowedHintMs = 10_000;
/** Flows remembered as followed; past this, the oldest is forgotten (it is then asked about again). */
const maxFollowedHints = 10_000;
/** How long after a failed attempt to open the publisher's connection the bus tries again. */
const openRetryMs = 1000;
/** One connection or SUBSCRIBE attempt; a slower one is retried. */
const attemptTimeoutMs = 2000;

interface Subscription {
  readonly listeners: Set<FlowListener>;
  /** The highest version delivered: older or repeated views (the echo of a local publish) are dropped. */
  lastVersion: number;
}

/** Creates a {@link RedisChangeBus}; see its options. */
export function createRedisChangeBus(options: RedisChangeBusOptions): RedisChangeBus {
  return new RedisChangeBus(options);
}

/**
 * A {@link FlowChangeBus} over Redis pub/sub: a change committed by any instance reaches the
 * listeners on every instance.
 *
 * - One channel per flow (`<namespace>::changes:<flowId>`), subscribed lazily when the first local
 *   listener of a flow arrives and unsubscribed when the last one leaves: an instance receives only
 *   the flows its UIs watch (docs/decisions/0304-one-channel-per-flow.md).
 * - A dedicated subscriber connection, kept subscribed by a `SubscriptionKeeper` (connects
 *   first, retries, resubscribes after a loss); publishing uses the store's connection.
 * - On Redis Cluster, sharded pub/sub by default (docs/decisions/0311-sharded-pub-sub-on-a-cluster.md).
 * - Local listeners get a local change at once, without the round trip; the echo from Redis, and any
 *   view older than one already delivered, is dropped, so each listener sees versions in increasing order.
 * - At-most-once, like Redis pub/sub: a listener whose connection was lost misses what was published
 *   meanwhile. `onResync` says when to re-read.
 */
export class RedisChangeBus implements FlowChangeBus {
  readonly #publisher: PubSubClient;
  readonly #store: RedisFlowStore | undefined;
  readonly #givenSubscriber: PubSubClient | undefined;
  readonly #channelPrefix: string;
  readonly #logger: Logger;
  readonly #onResync: ((flowIds: readonly string[]) => void) | undefined;
  readonly #subscribeTimeoutMs: number;
  readonly #mode: PubSubMode;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #onMessage = (message: string, channel: string): void => this.#receive(message, channel);
  /** Whether a commit may leave its view out when Redis says nobody follows the flow. */
  #askFollowers: boolean;
  /**
   * Flows the compare-and-set script found followed, with when to ask again: their commits carry the view at once.
   * A hint only: a flow missing here is asked about in the script itself.
   */
  readonly #followed = new RecentlyUsed<number>(maxFollowedHints);
  readonly #followedHintMs: number;
  #link: SubscriberLink | undefined;
  #keeper: SubscriptionKeeper | undefined;
  /** Stops listening to the publisher cluster's slot-map changes. */
  #stopWatching: (() => void) | undefined;
  #closed = false;

  constructor(options: RedisChangeBusOptions) {
    const publisher = options.store?.client ?? options.publisher;
    if (!publisher) throw new TypeError('RedisChangeBus needs a store or a publisher client');
    this.#publisher = publisher as unknown as PubSubClient;
    this.#store = options.store;
    this.#givenSubscriber = options.subscriber as unknown as PubSubClient | undefined;
    this.#channelPrefix = options.store
      ? options.store.redisKey(changeChannelPrefix)
      : `${options.namespace ?? 'verikit'}::${changeChannelPrefix}`;
    this.#logger = options.logger ?? silentLogger;
    this.#onResync = options.onResync;
    const subscribeTimeoutMs = options.subscribeTimeoutMs ?? defaultSubscribeTimeoutMs;
    if (!Number.isFinite(subscribeTimeoutMs) || subscribeTimeoutMs < 0)
      throw new TypeError('RedisChangeBus subscribeTimeoutMs must be a number of ms, 0 or more');
    this.#subscribeTimeoutMs = subscribeTimeoutMs;
    const mode = options.pubSub ?? (isClusterClient(publisher) ? 'sharded' : 'classic');
    if (mode !== 'classic' && mode !== 'sharded')
      throw new TypeError("RedisChangeBus pubSub must be 'classic' or 'sharded'");
    this.#mode = mode;
    this.#askFollowers = !(options.publishEveryChange ?? options.subscriber !== undefined);
    const followedHintMs = options.followedHintMs ?? defaultFollowedHintMs;
    if (!Number.isFinite(followedHintMs) || followedHintMs < 0)
      throw new TypeError('RedisChangeBus followedHintMs must be a number of ms, 0 or more');
    this.#followedHintMs = followedHintMs;
  }

  /** The channel a flow's changes are published on. */
  channelOf(flowId: string): string {
    return this.#channelPrefix + flowId;
  }

  publish(view: FlowView): void {
    this.#deliver(view);
    if (this.#closed) return;
    const channel = this.channelOf(view.id);
    const message = JSON.stringify(view);
    const published =
      this.#mode === 'sharded'
        ? this.#publisher.sPublish!(channel, message)
        : isClusterClient(this.#publisher)
          ? // node-redis sends a keyless PUBLISH to any node: two changes of one flow could then cross the cluster bus
            // by different nodes and arrive out of order (and the older be dropped). Routed by the channel's slot,
            // every change of a flow leaves through one node, in order.
            this.#publisher.sendCommand!(channel, false, ['PUBLISH', channel, message])
          : this.#publisher.publish(channel, message);
    published.catch((error: unknown) => {
      if (isClusterClient(this.#publisher)) healerFor(this.#publisher).poke();
      this.#logger.warn('verikit.redis.publish.failed', {
        flowId: view.id,
        version: view.version,
        error: errorName(error),
      });
    });
  }

  /**
   * On one node, the writes of this bus's own store that publish the change in the same script: one command per
   * committed change instead of two (docs/decisions/1200-one-script-per-commit.md). Undefined for another store, and
   * on a cluster, where a script may touch only the slot of its key and a flow's channel has a slot of its own.
   *
   * A flow with no listener on this instance is first written without its view, the script asking Redis whether
   * anybody subscribes to its channel; only if so is the view serialized and the write sent again with it
   * (docs/decisions/1400-no-view-for-a-flow-nobody-follows.md). Not with `publishEveryChange`. For a flow the engine
   * says is unseen (a start under way whose id has reached nobody), Redis is asked about pattern subscribers only
   * (docs/decisions/1830-a-start-s-own-commits-ask-only-for-pattern-subscribers.md).
   */
  publishingWrite(store: FlowStore): PublishingWrite | undefined {
    const own = this.#store;
    if (own === undefined || store !== own || isClusterClient(this.#publisher)) return undefined;
    const sharded = this.#mode === 'sharded';
    const withView = (
      record: FlowRecord,
      expectedVersion: number,
      ttlMs: number,
      view: () => FlowView,
      call: StoreCall | undefined,
      routes: readonly string[] | undefined,
    ): Promise<boolean> =>
      own.compareAndSetAndPublish(
        record,
        expectedVersion,
        ttlMs,
        { channel: this.channelOf(record.id), sharded, view: view() },
        call,
        routes,
      );
    return {
      writesRoutes: true,
      compareAndSetAndPublish: (record, expectedVersion, ttlMs, view, call, unseen, routes) => {
        if (this.#closed) return own.compareAndSetFlow(record, expectedVersion, ttlMs, call, routes);
        const flowId = record.id;
        if (!this.#askFollowers || this.#subscriptions.has(flowId) || this.#knownFollowed(flowId))
          return withView(record, expectedVersion, ttlMs, view, call, routes);
        return own
          .compareAndSetUnlessFollowed(
            record,
            expectedVersion,
            ttlMs,
            { channel: this.channelOf(flowId), sharded, unseen: unseen === true },
            call,
            routes,
          )
          .then((outcome) => {
            if (outcome === 'written' || outcome === 'conflict') return outcome === 'written';
            if (outcome === 'followed') this.#rememberFollowed(flowId);
            else this.#stopAsking();
            return withView(record, expectedVersion, ttlMs, view, call, routes);
          });
      },
      // The view is made only for a flow with listeners here.
      deliverLocally: (flowId, view) => {
        if (this.#subscriptions.has(flowId)) this.#deliver(view());
      },
    };
  }

  /** Whether a recent commit of the flow found it followed (a hint: correctness comes from the script). */
  #knownFollowed(flowId: string): boolean {
    if (this.#followed.size === 0) return false;
    const until = this.#followed.get(flowId);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#followed.forget(flowId);
    return false;
  }

  /** Redis refused `PUBSUB` to this user (an ACL): every commit carries its view from now on, as before 1400. */
  #stopAsking(): void {
    if (!this.#askFollowers) return;
    this.#askFollowers = false;
    this.#logger.warn('verikit.redis.followers.unasked', {
      error: 'the Redis user may not run PUBSUB NUMSUB in a script: every change is published',
    });
  }

  #rememberFollowed(flowId: string): void {
    if (this.#followedHintMs === 0) return;
    this.#followed.remember(flowId, Date.now() + this.#followedHintMs);
  }

  subscribe(flowId: string, listener: FlowListener): () => void {
    if (this.#closed) throw new Error('the change bus is closed');
    let subscription = this.#subscriptions.get(flowId);
    if (!subscription) {
      subscription = { listeners: new Set(), lastVersion: 0 };
      this.#subscriptions.set(flowId, subscription);
      this.#subscriber().want(this.channelOf(flowId));
    }
    subscription.listeners.add(listener);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const current = this.#subscriptions.get(flowId);
      if (!current) return;
      current.listeners.delete(listener);
      if (current.listeners.size > 0) return;
      this.#subscriptions.delete(flowId);
      this.#keeper?.drop(this.channelOf(flowId));
    };
  }

  /**
   * Resolves once Redis confirmed the subscription of `flowId`. A listener must be subscribed:
   * without one it rejects with a `UsageError` (a bug in the caller, not an outage).
   * Read the view after this to miss nothing: every change committed later reaches the listener.
   * Rejects with a `StoreError` when Redis did not confirm it within `subscribeTimeoutMs` (Redis
   * unreachable, or a cluster node lost); the subscription is retried, and `onResync` says to re-read
   * once it is live.
   */
  subscribed(flowId: string): Promise<void> {
    const channel = this.channelOf(flowId);
    const live = this.#subscriptions.has(flowId) ? this.#keeper?.live(channel) : undefined;
    if (!live) {
      return Promise.reject(
        new UsageError('subscribed(flowId) waits for a subscription: call subscribe(flowId, listener) first', {
          field: 'flowId',
        }),
      );
    }
    return withDeadline(live, this.#subscribeTimeoutMs, () => {
      const reason = this.#keeper?.lastError(channel);
      return new StoreError(
        `live updates are unavailable: Redis did not confirm the subscription within ${this.#subscribeTimeoutMs} ms`,
        reason === undefined ? {} : { cause: safeStoreCause(reason) },
      );
    });
  }

  /** Unsubscribes everything and closes the subscriber connection. The publisher (the store's) stays open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#subscriptions.clear();
    this.#stopWatching?.();
    // Subscriptions in flight are waited for while Redis answers; queued ones (Redis unreachable)
    // would never settle, so the wait is bounded and the connection destroyed.
    await this.#keeper?.close(this.#subscribeTimeoutMs || attemptTimeoutMs);
    await this.#link?.close();
  }

  /** The keeper, and the subscriber connection under it, made with the first subscription. */
  #subscriber(): SubscriptionKeeper {
    if (this.#keeper) return this.#keeper;
    const link = createSubscriberLink(this.#publisher, this.#givenSubscriber, this.#mode, {
      lost: () => this.#keeper?.lost(),
      error: (error) => this.#logger.warn('verikit.redis.subscriber.error', { error: errorName(error) }),
    });
    this.#link = link;
    // On a cluster the store's healer asks for the slot map once a second: the subscriber's map follows it, and the
    // subscriptions follow the map (a master that died or hangs).
    if (link.checkSlots && isClusterClient(this.#publisher)) {
      this.#stopWatching = healerFor(this.#publisher).onSlots((reply, seed) => {
        link.checkSlots!(reply, seed).catch((error: unknown) =>
          this.#logger.warn('verikit.redis.subscriber.error', { error: errorName(error) }),
        );
      });
      this.#openPublisher();
    }
    this.#keeper = new SubscriptionKeeper({
      link,
      listener: this.#onMessage,
      attemptTimeoutMs:
        this.#subscribeTimeoutMs > 0 ? Math.min(this.#subscribeTimeoutMs, attemptTimeoutMs) : attemptTimeoutMs,
      resynced: (channels) => this.#resynced(channels),
      failed: (channel, error) =>
        this.#logger.warn('verikit.redis.subscribe.failed', {
          ...(channel === undefined ? {} : { flowId: channel.slice(this.#channelPrefix.length) }),
          error: errorName(error),
        }),
    });
    return this.#keeper;
  }

  /**
   * Opens the publisher's connection (the store's) if nothing did yet, and tries again each second until it is open.
   * On a cluster the subscriptions follow a failover by the slot-map checks the store's connection makes once a
   * second (its healer); a process that only follows flows never opens that connection with a call of its own, and
   * would never follow a master that hangs (docs/decisions/1610-a-follower-opens-the-store-connection.md).
   */
  #openPublisher(): void {
    if (this.#closed || this.#publisher.isOpen) return;
    (this.#store ? this.#store.connect() : this.#publisher.connect()).catch((error: unknown) => {
      // A closed store is not opened again.
      if (this.#closed || (StoreError.isInstance(error) && !error.isRetryable)) return;
      this.#logger.warn('verikit.redis.subscriber.error', { error: errorName(error) });
      setTimeout(() => this.#openPublisher(), openRetryMs).unref();
    });
  }

  /** After a lost connection, every subscription is live again: tell the application to re-read. */
  #resynced(channels: readonly string[]): void {
    const flowIds = channels
      .map((channel) => channel.slice(this.#channelPrefix.length))
      .filter((flowId) => this.#subscriptions.has(flowId));
    if (flowIds.length === 0 || !this.#onResync || this.#closed) return;
    try {
      this.#onResync(flowIds);
    } catch (error) {
      this.#logger.error('verikit.redis.resync.failed', { error: errorName(error) });
    }
  }

  #receive(message: string, channel: string): void {
    if (!channel.startsWith(this.#channelPrefix)) return;
    const flowId = channel.slice(this.#channelPrefix.length);
    let view: unknown;
    try {
      view = JSON.parse(message);
    } catch {
      this.#logger.warn('verikit.redis.message.invalid', { flowId });
      return;
    }
    if (
      typeof view !== 'object' ||
      view === null ||
      (view as FlowView).id !== flowId ||
      typeof (view as FlowView).version !== 'number'
    ) {
      this.#logger.warn('verikit.redis.message.invalid', { flowId });
      return;
    }
    this.#deliver(Object.freeze(view) as FlowView);
  }

  #deliver(view: FlowView): void {
    const subscription = this.#subscriptions.get(view.id);
    if (!subscription || view.version <= subscription.lastVersion) return;
    subscription.lastVersion = view.version;
    for (const listener of [...subscription.listeners]) {
      try {
        listener(view);
      } catch (error) {
        this.#logger.error('verikit.listener.failed', { flowId: view.id, error: errorName(error) });
      }
    }
  }
}

/**
 * An error fit to log: its class and system code only (`Error (ECONNREFUSED)`). A driver's message
 * can hold the Redis URL with its password, and a listener's error anything at all.
 */
function errorName(error: unknown): string {
  return safeStoreCause(error).message;
}

/** Settles as `promise` does, or rejects with `timeoutError()` after `ms` (0: no deadline). */
function withDeadline<T>(promise: Promise<T>, ms: number, timeoutError: () => Error): Promise<T> {
  if (ms <= 0) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timeoutError()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}
