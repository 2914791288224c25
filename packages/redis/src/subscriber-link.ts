import {
  clusterConnectionsUp,
  healerFor,
  isClusterClient,
  mapIsStale,
  type ClusterHealer,
  type HealableCluster,
} from './cluster-healer.js';

/** A pub/sub message listener, as node-redis calls it. */
export type MessageListener = (message: string, channel: string) => void;

/** Which pub/sub the change bus uses: classic `SUBSCRIBE`/`PUBLISH`, or sharded `SSUBSCRIBE`/`SPUBLISH` (Redis 7+). */
export type PubSubMode = 'classic' | 'sharded';

/**
 * The subscriber side of the change bus, over one node-redis client or a cluster client. The bus's
 * {@link SubscriptionKeeper} says which channels it wants; the link only connects, sends, and reports.
 */
export interface SubscriberLink {
  /** Resolves once subscriptions can be sent (connecting first if needed); rejects when that fails now. */
  ready(): Promise<void>;
  /** True while every connection carrying subscriptions is up: a confirmed subscription is then live. */
  readonly up: boolean;
  subscribe(channel: string, listener: MessageListener): Promise<void>;
  unsubscribe(channel: string, listener: MessageListener): Promise<void>;
  /** Closes the connection(s): gracefully when up, at once otherwise. */
  close(): Promise<void>;
  /**
   * The cluster's `CLUSTER SLOTS` answer, from `seed` (a connection to a node that answers): when
   * another node now serves some slots (a failover, a node that hung), re-read the slot map and report
   * the subscriptions lost, so every one is sent again where its channel now lives. Absent on a single node.
   */
  checkSlots?(reply: unknown, seed: unknown): Promise<void>;
}

/** What a link reports to the keeper: a connection carrying subscriptions was lost, and driver errors. */
export interface LinkEvents {
  lost(): void;
  error(error: unknown): void;
}

/** The node-redis surface the links use (a client, or a cluster client). */
export interface PubSubClient {
  readonly isOpen: boolean;
  readonly isReady?: boolean;
  connect(): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
  sPublish?(channel: string, message: string): Promise<unknown>;
  /** A cluster client's raw command, routed by `firstKey`'s slot. */
  sendCommand?(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: MessageListener): Promise<void>;
  unsubscribe(channel: string, listener: MessageListener): Promise<void>;
  sSubscribe?(channel: string, listener: MessageListener): Promise<void>;
  sUnsubscribe?(channel: string, listener: MessageListener): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once?(event: string, listener: (...args: unknown[]) => void): unknown;
  close(): Promise<void>;
  destroy(): void;
  duplicate(overrides?: Record<string, unknown>): PubSubClient;
  readonly options?: { socket?: Record<string, unknown> };
}

/** Retries a lost subscriber connection every 50 ms to 1 s, with jitter. */
function backoff(retries: number): number {
  return Math.min(50 * 2 ** retries, 1000) + Math.floor(Math.random() * 50);
}

/**
 * The subscriber link of a bus publishing through `publisher`: over a duplicate of it unless
 * `given` is a connection to subscribe with.
 */
export function createSubscriberLink(
  publisher: PubSubClient,
  given: PubSubClient | undefined,
  mode: PubSubMode,
  events: LinkEvents,
): SubscriberLink {
  const client = given ?? publisher;
  if (isClusterClient(client)) {
    // Only the pub/sub connections are opened: no command connection to every master.
    const subscriber = given ?? publisher.duplicate({ minimizeConnections: true });
    return new ClusterSubscriberLink(subscriber as PubSubClient & HealableCluster, mode, events);
  }
  const subscriber =
    given ??
    publisher.duplicate({
      // A SUBSCRIBE sent while reconnecting waits for the connection rather than failing (0304).
      disableOfflineQueue: false,
      commandOptions: undefined,
      socket: { ...publisher.options?.socket, reconnectStrategy: backoff },
    });
  return new ClientSubscriberLink(subscriber, mode, events);
}

/** A subscriber link over one node-redis client: node-redis resubscribes by itself after a reconnection. */
class ClientSubscriberLink implements SubscriberLink {
  readonly #client: PubSubClient;
  readonly #mode: PubSubMode;
  #whenReady: Promise<void>;
  #markReady: () => void = () => {};

  constructor(client: PubSubClient, mode: PubSubMode, events: LinkEvents) {
    this.#client = client;
    this.#mode = mode;
    this.#whenReady = this.#waitForReady();
    client.on('error', (error) => events.error(error));
    client.on('ready', () => this.#markReady());
    const lost = () => {
      this.#whenReady = this.#waitForReady();
      events.lost();
    };
    client.on('reconnecting', lost);
    client.on('end', lost);
  }

  get up(): boolean {
    return this.#client.isReady === true;
  }

  ready(): Promise<void> {
    if (this.up) return Promise.resolve();
    if (!this.#client.isOpen) this.#client.connect().catch(() => undefined); // failures arrive as 'error' events
    return this.#whenReady;
  }

  subscribe(channel: string, listener: MessageListener): Promise<void> {
    return this.#mode === 'sharded'
      ? this.#client.sSubscribe!(channel, listener)
      : this.#client.subscribe(channel, listener);
  }

  unsubscribe(channel: string, listener: MessageListener): Promise<void> {
    return this.#mode === 'sharded'
      ? this.#client.sUnsubscribe!(channel, listener)
      : this.#client.unsubscribe(channel, listener);
  }

  async close(): Promise<void> {
    if (!this.#client.isOpen) return;
    if (this.up) await this.#client.close();
    else this.#client.destroy();
  }

  #waitForReady(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#markReady = resolve;
    });
  }
}

/**
 * A subscriber link over a cluster client. The client is connected (its slot map read) before
 * anything is subscribed: a cluster client has no offline queue and no nodes before that. A lost
 * node connection starts the slot-map refresh; subscriptions count as live only while every
 * pub/sub connection is up, so the keeper resubscribes (onto a promoted replica) once it is healed.
 */
class ClusterSubscriberLink implements SubscriberLink {
  readonly #cluster: PubSubClient & HealableCluster;
  readonly #mode: PubSubMode;
  readonly #healer: ClusterHealer;
  #connecting: Promise<void> | undefined;

  readonly #events: LinkEvents;
  #refreshing = false;

  constructor(cluster: PubSubClient & HealableCluster, mode: PubSubMode, events: LinkEvents) {
    this.#cluster = cluster;
    this.#mode = mode;
    this.#events = events;
    this.#healer = healerFor(cluster);
    cluster.on('error', (error) => events.error(error));
    cluster.on('node-error', (error) => events.error(error));
    cluster.on('node-reconnecting', () => events.lost());
  }

  get up(): boolean {
    return this.#connecting === undefined && clusterConnectionsUp(this.#cluster);
  }

  async ready(): Promise<void> {
    if (!this.#cluster.isOpen) {
      this.#connecting ??= this.#cluster.connect().then(
        () => {
          this.#connecting = undefined;
        },
        (error: unknown) => {
          this.#connecting = undefined;
          throw error;
        },
      );
    }
    if (this.#connecting) await this.#connecting;
    if (!this.up) {
      this.#healer.poke();
      throw new Error('a cluster pub/sub connection is down');
    }
  }

  subscribe(channel: string, listener: MessageListener): Promise<void> {
    return this.#mode === 'sharded'
      ? this.#cluster.sSubscribe!(channel, listener)
      : this.#cluster.subscribe(channel, listener);
  }

  async checkSlots(reply: unknown, seed: unknown): Promise<void> {
    if (!this.#cluster.isOpen || this.#connecting || this.#refreshing || !mapIsStale(this.#cluster, reply)) return;
    // node-redis drops, without a word, the pub/sub connection of a node that leaves the map and its
    // sharded subscriptions with it; a node that hangs never tells it to move them (it sends SUNSUBSCRIBE
    // only once it wakes up as a replica). So every subscription is sent again once the map is current.
    this.#refreshing = true;
    try {
      await this.#healer.refresh(seed);
    } finally {
      this.#refreshing = false;
    }
    this.#events.lost();
  }

  async unsubscribe(channel: string, listener: MessageListener): Promise<void> {
    // Before the first connection there is no slot map, and nothing to unsubscribe.
    if (!this.#cluster.isOpen || this.#connecting) return;
    await (this.#mode === 'sharded'
      ? this.#cluster.sUnsubscribe!(channel, listener)
      : this.#cluster.unsubscribe(channel, listener));
  }

  async close(): Promise<void> {
    this.#healer.close();
    if (this.#connecting) await this.#connecting.catch(() => undefined);
    if (!this.#cluster.isOpen) return;
    if (this.up) await this.#cluster.close();
    else this.#cluster.destroy();
  }
}
