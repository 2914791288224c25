/** A node connection of a node-redis cluster client, as far as this package looks at it. */
interface NodeConnection {
  readonly isReady: boolean;
  readonly options?: unknown;
  sendCommand?(args: string[]): Promise<unknown>;
}

/** One node of a node-redis cluster client's slot map, as far as this package looks at it. */
interface ClusterNodeView {
  readonly address: string;
  readonly client?: NodeConnection & { destroy?(): void };
  readonly pubSub?: { readonly client: NodeConnection };
  /** Set while node-redis connects to the node for the first time (and waits for it, in a refresh). */
  readonly connectPromise?: Promise<unknown> | undefined;
}

/** The node-redis cluster client surface the healer uses (`RedisClusterType`). */
export interface HealableCluster {
  readonly isOpen: boolean;
  readonly masters: readonly ClusterNodeView[];
  readonly pubSubNode?: { readonly client: { readonly isReady: boolean } } | undefined;
  readonly _slots: {
    readonly slots: ReadonlyArray<{ readonly master: { readonly address: string } } | undefined>;
    readonly nodeByAddress: Map<string, ClusterNodeView>;
    rediscover(startWith: never): Promise<void>;
  };
  on(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** True when `client` is a node-redis cluster client (it has a slot map), not a single-node client. */
export function isClusterClient(client: unknown): client is HealableCluster {
  return typeof client === 'object' && client !== null && '_slots' in client && 'masters' in client;
}

/**
 * True when every connection the cluster client holds is up: each master's command connection and
 * sharded pub/sub connection, and the classic pub/sub connection. A master the client never connected
 * to (`minimizeConnections`) counts as up.
 */
export function clusterConnectionsUp(cluster: HealableCluster): boolean {
  if (!cluster.isOpen || cluster.masters.length === 0) return false;
  if (cluster.pubSubNode && !cluster.pubSubNode.client.isReady) return false;
  return cluster.masters.every((node) => (node.client?.isReady ?? true) && (node.pubSub?.client.isReady ?? true));
}

/** Who serves which slots: one `from:host:port` entry per run of slots with one master. */
function slotOwners(cluster: HealableCluster): string {
  const runs: string[] = [];
  let previous: string | undefined;
  cluster._slots.slots.forEach((shard, slot) => {
    const address = shard?.master.address;
    if (address !== previous) runs.push(`${slot}:${address}`);
    previous = address;
  });
  return runs.join(',');
}

/** True when a `CLUSTER SLOTS` reply names another master than the client's map for some slot. */
export function mapIsStale(cluster: HealableCluster, reply: unknown): boolean {
  if (!Array.isArray(reply)) return false;
  return reply.some((range) => {
    if (!Array.isArray(range) || !Array.isArray(range[2])) return false;
    const [from, , [host, port]] = range as [unknown, unknown, [unknown, unknown]];
    return cluster._slots.slots[Number(from)]?.master.address !== `${String(host)}:${String(port)}`;
  });
}

/** Settles as `promise` does, or with `undefined` after `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Hears a `CLUSTER SLOTS` answer and the connection to the node that gave it. */
type SlotsListener = (reply: unknown, seed: unknown) => void;

const firstDelayMs = 100;
const maxDelayMs = 500;
/** How often the slot map is compared with the cluster's: the one check that sees a node that hangs. */
const checkIntervalMs = 1000;
/** How long a node may take to answer `CLUSTER SLOTS` before the next one is asked. */
const askTimeoutMs = 500;
/** How long a refresh may take before the healer ends it (it waits on a node that never answers). */
const refreshTimeoutMs = 2000;

/**
 * Keeps a cluster client's slot map current when a master is lost, whether it dies or hangs
 * (docs/decisions/0310-cluster-slot-map-refresh-on-connection-loss.md, 0320-hung-node-slot-map-check.md).
 *
 * - A node that dies: node-redis refreshes the map only when a node answers MOVED, and with the
 *   offline queue off a command for a dead master fails on the client's own (reconnecting)
 *   connection without reaching any node. When a node connection errs or reconnects (or
 *   {@link ClusterHealer.poke} is called after a failed call), the healer refreshes the map every
 *   100 to 500 ms until every connection is up again.
 * - A node that hangs (a stopped process, a partition without a reset) keeps its connection "up" and
 *   causes no error at all: commands sent to it just wait. Once a second (and at once after a failed
 *   call) the healer asks a node that answers within 500 ms for its `CLUSTER SLOTS`, and refreshes the
 *   map when another node now serves some slots: within about a second of the promotion, calls reach
 *   the promoted replica. One small command a second per cluster client.
 *
 * Listeners given to {@link ClusterHealer.onSlots} hear every answer, so the change bus's subscriber
 * client (which has no command connection to ask with) follows too.
 */
export class ClusterHealer {
  readonly #cluster: HealableCluster;
  readonly #listeners = new Set<SlotsListener>();
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | undefined;
  /** The last connection whose node answered a check: the seed of choice (a hung node's connection looks ready too). */
  #answered: NodeConnection | undefined;
  #checking: Promise<void> | undefined;
  #closed = false;

  constructor(cluster: HealableCluster) {
    this.#cluster = cluster;
    cluster.on('node-reconnecting', () => this.poke());
    cluster.on('node-error', () => this.poke());
    this.#timer = setInterval(() => this.#check(), checkIntervalMs);
    this.#timer.unref();
  }

  /** Starts refreshing the slot map unless it is already being refreshed (cheap to call often). */
  poke(): void {
    if (this.#closed) return;
    this.#check();
    if (this.#running) return;
    this.#running = this.#heal().finally(() => {
      this.#running = undefined;
    });
  }

  /**
   * Calls `listener` after every check with the cluster's `CLUSTER SLOTS` answer and the connection
   * that gave it (a node that answers), so another client of the same cluster (the change bus's
   * subscriber, which holds no command connection) can check its own map. Returns the unsubscribe.
   */
  onSlots(listener: SlotsListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Resolves when the refresh in progress, if any, has ended. */
  async settled(): Promise<void> {
    await Promise.all([this.#running, this.#checking]);
  }

  /** Stops refreshing (the cluster client is being closed). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }

  /** Refreshes the map from `seed` (a node connection whose options name a node that answers); true when it changed. */
  async refresh(seed: unknown): Promise<boolean> {
    const before = slotOwners(this.#cluster);
    const ended = await within(
      this.#cluster._slots.rediscover(seed as never).then(
        () => true,
        () => true,
      ),
      refreshTimeoutMs,
    );
    if (ended === undefined) this.#forgetUnconnected();
    return slotOwners(this.#cluster) !== before;
  }

  /**
   * Forgets the nodes node-redis is still connecting to for the first time. A refresh waits for a connection to every
   * master it did not know, and one to a dead node (named by a node whose map still lags) never comes up: node-redis
   * reconnects to it for ever, and every later refresh waits on that same one, so the map would stay stale for good
   * (docs/decisions/1390-a-refresh-stalled-on-a-dead-node-is-ended.md). Destroying the connection ends the wait;
   * dropping the node makes the next refresh connect to it afresh if the cluster still names it.
   */
  #forgetUnconnected(): void {
    const nodes = this.#cluster._slots.nodeByAddress;
    for (const [address, node] of [...nodes]) {
      if (node.connectPromise === undefined) continue;
      nodes.delete(address);
      node.client?.destroy?.();
    }
  }

  /** Compares the map with a node's, at most one check at a time. */
  #check(): void {
    if (this.#checking || this.#closed || !this.#cluster.isOpen || this.#cluster.masters.length === 0) return;
    this.#checking = this.#compare().finally(() => {
      this.#checking = undefined;
    });
  }

  async #compare(): Promise<void> {
    const connections = this.#cluster.masters
      .map((node) => node.client)
      .filter((client): client is NodeConnection => client?.isReady === true && client.sendCommand !== undefined)
      .sort(() => Math.random() - 0.5);
    for (const client of connections.slice(0, 3)) {
      const reply = await within(
        client.sendCommand!(['CLUSTER', 'SLOTS']).catch(() => undefined),
        askTimeoutMs,
      );
      if (reply === undefined || this.#closed) continue;
      this.#answered = client;
      if (mapIsStale(this.#cluster, reply)) await this.refresh(client);
      for (const listener of [...this.#listeners]) listener(reply, client);
      return;
    }
  }

  async #heal(): Promise<void> {
    for (let round = 0; !this.#closed; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(firstDelayMs * 2 ** round, maxDelayMs)).unref());
      const cluster = this.#cluster;
      if (this.#closed || !cluster.isOpen || cluster.masters.length === 0) return;
      if (clusterConnectionsUp(cluster)) return;
      const seed = this.#seed();
      // A failed refresh (no node reachable yet) is reported by the cluster's 'error' event; try again.
      if (seed) await this.refresh(seed);
      if (clusterConnectionsUp(cluster)) return;
    }
  }

  /** A connection to ask for the slot map: one that is up when there is one (node-redis falls back to the root nodes). */
  #seed(): unknown {
    const connections = this.#cluster.masters.flatMap((node) =>
      [node.client, node.pubSub?.client].filter((client) => client !== undefined),
    );
    if (this.#answered?.isReady && connections.includes(this.#answered)) return this.#answered;
    return connections.find((client) => client.isReady) ?? connections[0];
  }
}

const healers = new WeakMap<object, ClusterHealer>();

/** The one healer of a cluster client (the store and the change bus share it). */
export function healerFor(cluster: HealableCluster): ClusterHealer {
  let healer = healers.get(cluster);
  if (!healer) {
    healer = new ClusterHealer(cluster);
    healers.set(cluster, healer);
  }
  return healer;
}
