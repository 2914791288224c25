import { silentLogger } from '@verikit/provider';
import { StoreError, type FlowChangeBus, type FlowListener, type FlowView, type Logger } from '@verikit/core';
import { safeStoreCause } from '@verikit/core/store';
import type { RedisFlowStore, RedisFlowStoreClient } from './redis-flow-store.js';

/** Options of {@link createRedisChangeBus} and the {@link RedisChangeBus} constructor. */
export interface RedisChangeBusOptions {
  /** Publishes through this store's connection, and names channels after its namespace. */
  store?: RedisFlowStore;
  /** The client to publish with, when no `store` is given (a connected node-redis client). */
  publisher?: RedisFlowStoreClient;
  /**
   * The dedicated connection for SUBSCRIBE. Default: a duplicate of the publisher's connection, with
   * the offline queue on (a subscription made during an outage takes effect when Redis returns) and
   * reconnection with backoff.
   */
  subscriber?: RedisFlowStoreClient;
  /** Channel prefix when no `store` is given: channels are `<namespace>::changes:<flowId>`. Default `verikit`. */
  namespace?: string;
  /** Where failed publishes, failed subscriptions and throwing listeners are reported. Default: silent. */
  logger?: Logger;
  /**
   * Called when the subscriber connection is back after a loss, with the flows that have listeners
   * here. Messages published meanwhile are lost (pub/sub is at-most-once): re-read those flows
   * (`verikit.get`) and hand the views to your listeners.
   */
  onResync?: (flowIds: readonly string[]) => void;
  /**
   * How long {@link RedisChangeBus.subscribed} waits for Redis to confirm a subscription before it
   * rejects with a `StoreError` (Redis unreachable: the SUBSCRIBE stays queued and takes effect when
   * Redis returns). Also bounds how long `close()` waits for subscriptions in flight. Default 5000 ms;
   * 0 turns it off.
   */
  subscribeTimeoutMs?: number;
}

const defaultSubscribeTimeoutMs = 5000;

interface Subscription {
  readonly listeners: Set<FlowListener>;
  /** The highest version delivered: older or repeated views (the echo of a local publish) are dropped. */
  lastVersion: number;
  /** Settles when Redis confirmed the SUBSCRIBE (or it failed). */
  confirmed: Promise<void>;
}

/** The node-redis surface the bus uses. */
interface PubSubClient {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  unsubscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  close(): Promise<void>;
  destroy(): void;
  duplicate(overrides?: Record<string, unknown>): PubSubClient;
  readonly options?: { socket?: Record<string, unknown> };
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
 * - A dedicated subscriber connection; publishing uses the store's connection.
 * - Local listeners get a local change at once, without the round trip; the echo from Redis, and any
 *   view older than one already delivered, is dropped, so each listener sees versions in increasing order.
 * - At-most-once, like Redis pub/sub: a listener whose connection was lost misses what was published
 *   meanwhile. `onResync` says when to re-read.
 */
export class RedisChangeBus implements FlowChangeBus {
  readonly #publisher: PubSubClient;
  readonly #givenSubscriber: PubSubClient | undefined;
  readonly #channelPrefix: string;
  readonly #logger: Logger;
  readonly #onResync: ((flowIds: readonly string[]) => void) | undefined;
  readonly #subscribeTimeoutMs: number;
  readonly #subscriptions = new Map<string, Subscription>();
  /** Per channel, the last SUBSCRIBE/UNSUBSCRIBE sent, so they reach Redis in the order they were made. */
  readonly #pending = new Map<string, Promise<void>>();
  readonly #onMessage = (message: string, channel: string): void => this.#receive(message, channel);
  #subscriber: PubSubClient | undefined;
  #lostConnection = false;
  #closed = false;

  constructor(options: RedisChangeBusOptions) {
    const publisher = options.store?.client ?? options.publisher;
    if (!publisher) throw new TypeError('RedisChangeBus needs a store or a publisher client');
    this.#publisher = publisher as unknown as PubSubClient;
    this.#givenSubscriber = options.subscriber as unknown as PubSubClient | undefined;
    this.#channelPrefix = options.store ? options.store.redisKey('changes:') : `${options.namespace ?? 'verikit'}::changes:`;
    this.#logger = options.logger ?? silentLogger;
    this.#onResync = options.onResync;
    const subscribeTimeoutMs = options.subscribeTimeoutMs ?? defaultSubscribeTimeoutMs;
    if (!Number.isFinite(subscribeTimeoutMs) || subscribeTimeoutMs < 0) throw new TypeError('RedisChangeBus subscribeTimeoutMs must be a number of ms, 0 or more');
    this.#subscribeTimeoutMs = subscribeTimeoutMs;
  }

  /** The channel a flow's changes are published on. */
  channelOf(flowId: string): string {
    return this.#channelPrefix + flowId;
  }

  publish(view: FlowView): void {
    this.#deliver(view);
    if (this.#closed) return;
    this.#publisher.publish(this.channelOf(view.id), JSON.stringify(view)).catch((error: unknown) => {
      this.#logger.warn('verikit.redis.publish.failed', { flowId: view.id, version: view.version, error: errorName(error) });
    });
  }

  subscribe(flowId: string, listener: FlowListener): () => void {
    if (this.#closed) throw new Error('the change bus is closed');
    let subscription = this.#subscriptions.get(flowId);
    if (!subscription) {
      subscription = { listeners: new Set(), lastVersion: 0, confirmed: Promise.resolve() };
      this.#subscriptions.set(flowId, subscription);
      subscription.confirmed = this.#redisSubscribe(flowId);
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
      this.#redisUnsubscribe(flowId);
    };
  }

  /**
   * Resolves once Redis confirmed the subscription of `flowId` (a listener must be subscribed).
   * Read the view after this to miss nothing: every change committed later reaches the listener.
   * Rejects with a `StoreError` when the subscription failed, or when Redis did not confirm it within
   * `subscribeTimeoutMs` (Redis unreachable); the subscription stays queued, and is retried when
   * Redis returns (`onResync` then says to re-read).
   */
  subscribed(flowId: string): Promise<void> {
    const subscription = this.#subscriptions.get(flowId);
    if (!subscription) return Promise.reject(new Error(`no listener is subscribed to flow ${flowId}`));
    const confirmed = subscription.confirmed.catch((error: unknown) => {
      throw new StoreError('live updates are unavailable: the change bus could not subscribe', { cause: safeStoreCause(error) });
    });
    return withDeadline(
      confirmed,
      this.#subscribeTimeoutMs,
      () => new StoreError(`live updates are unavailable: Redis did not confirm the subscription within ${this.#subscribeTimeoutMs} ms`),
    );
  }

  /** Unsubscribes everything and closes the subscriber connection. The publisher (the store's) stays open. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#subscriptions.clear();
    const subscriber = this.#subscriber;
    if (subscriber?.isOpen) {
      // Subscriptions in flight are waited for while Redis answers; queued ones (Redis unreachable)
      // would never settle, so the wait is bounded and the connection destroyed.
      if (subscriber.isReady) await withDeadline(Promise.allSettled([...this.#pending.values()]), this.#subscribeTimeoutMs, () => new Error('timeout')).catch(() => undefined);
      if (subscriber.isReady) await subscriber.close();
      else subscriber.destroy();
    }
  }

  #subscriberConnection(): PubSubClient {
    if (this.#subscriber) return this.#subscriber;
    const subscriber =
      this.#givenSubscriber ??
      this.#publisher.duplicate({
        disableOfflineQueue: false,
        commandOptions: undefined,
        socket: { ...this.#publisher.options?.socket, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000) + Math.floor(Math.random() * 50) },
      });
    subscriber.on('error', (error) => this.#logger.warn('verikit.redis.subscriber.error', { error: errorName(error) }));
    subscriber.on('end', () => {
      this.#lostConnection = true;
    });
    subscriber.on('reconnecting', () => {
      this.#lostConnection = true;
    });
    subscriber.on('ready', () => this.#resync());
    this.#subscriber = subscriber;
    if (!subscriber.isOpen) {
      subscriber.connect().catch((error: unknown) => this.#logger.warn('verikit.redis.subscriber.connect.failed', { error: errorName(error) }));
    }
    return subscriber;
  }

  #redisSubscribe(flowId: string): Promise<void> {
    const channel = this.channelOf(flowId);
    const subscriber = this.#subscriberConnection();
    const previous = this.#pending.get(channel) ?? Promise.resolve();
    const confirmed = previous.then(() => subscriber.subscribe(channel, this.#onMessage));
    this.#track(channel, confirmed);
    confirmed.catch((error: unknown) => this.#logger.warn('verikit.redis.subscribe.failed', { flowId, error: errorName(error) }));
    return confirmed;
  }

  #redisUnsubscribe(flowId: string): void {
    const channel = this.channelOf(flowId);
    const subscriber = this.#subscriber;
    if (!subscriber) return;
    const previous = this.#pending.get(channel) ?? Promise.resolve();
    const done = previous.catch(() => undefined).then(() => subscriber.unsubscribe(channel, this.#onMessage));
    this.#track(channel, done);
    done.catch((error: unknown) => this.#logger.warn('verikit.redis.unsubscribe.failed', { flowId, error: errorName(error) }));
  }

  #track(channel: string, operation: Promise<void>): void {
    const settled = operation.then(
      () => undefined,
      () => undefined,
    );
    this.#pending.set(channel, settled);
    void settled.then(() => {
      if (this.#pending.get(channel) === settled) this.#pending.delete(channel);
    });
  }

  /** After a reconnection: node-redis resubscribes what it had; anything whose SUBSCRIBE failed is sent again. */
  #resync(): void {
    if (!this.#lostConnection || this.#closed) return;
    this.#lostConnection = false;
    const flowIds = [...this.#subscriptions.keys()];
    for (const flowId of flowIds) {
      const subscription = this.#subscriptions.get(flowId);
      if (subscription) subscription.confirmed = this.#redisSubscribe(flowId);
    }
    if (flowIds.length > 0 && this.#onResync) {
      try {
        this.#onResync(flowIds);
      } catch (error) {
        this.#logger.error('verikit.redis.resync.failed', { error: errorName(error) });
      }
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
    if (typeof view !== 'object' || view === null || (view as FlowView).id !== flowId || typeof (view as FlowView).version !== 'number') {
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
