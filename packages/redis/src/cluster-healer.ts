/** One node of a node-redis cluster client's slot map, as far as this package looks at it. */
interface ClusterNodeView {
  readonly address: string;
  readonly client?: { readonly isReady: boolean; readonly options?: unknown };
  readonly pubSub?: { readonly client: { readonly isReady: boolean; readonly options?: unknown } };
}

/** The node-redis cluster client surface the healer uses (`RedisClusterType`). */
export interface HealableCluster {
  readonly isOpen: boolean;
  readonly masters: readonly ClusterNodeView[];
  readonly pubSubNode?: { readonly client: { readonly isReady: boolean } } | undefined;
  readonly _slots: { rediscover(startWith: never): Promise<void> };
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

const firstDelayMs = 100;
const maxDelayMs = 500;

/**
 * Refreshes a cluster client's slot map while one of its connections is down, until every one is up.
 *
 * node-redis refreshes the map only when a node answers MOVED. With the offline queue off, a command
 * for a dead master fails at once on the client's own (reconnecting) connection and never reaches a
 * node that could answer MOVED, so after a failover the promoted replica is never found while the dead
 * node stays away (docs/decisions/0310-cluster-slot-map-refresh-on-connection-loss.md). The healer
 * starts when a node connection errs or reconnects (or when {@link ClusterHealer.poke} is called after
 * a failed call), asks the cluster for its slot map every 100 to 500 ms, and stops once every
 * connection is up: within half a second of the cluster promoting a replica, calls reach it.
 */
export class ClusterHealer {
  readonly #cluster: HealableCluster;
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(cluster: HealableCluster) {
    this.#cluster = cluster;
    cluster.on('node-reconnecting', () => this.poke());
    cluster.on('node-error', () => this.poke());
  }

  /** Starts refreshing the slot map unless it is already being refreshed (cheap to call often). */
  poke(): void {
    if (this.#running || this.#closed) return;
    this.#running = this.#heal().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves when the refresh in progress, if any, has ended. */
  settled(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  /** Stops refreshing (the cluster client is being closed). */
  close(): void {
    this.#closed = true;
  }

  async #heal(): Promise<void> {
    for (let round = 0; !this.#closed; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(firstDelayMs * 2 ** round, maxDelayMs)).unref());
      const cluster = this.#cluster;
      if (this.#closed || !cluster.isOpen || cluster.masters.length === 0) return;
      if (clusterConnectionsUp(cluster)) return;
      const seed = this.#seed();
      // A failed refresh (no node reachable yet) is reported by the cluster's 'error' event; try again.
      if (seed) await cluster._slots.rediscover(seed as never).catch(() => undefined);
      if (clusterConnectionsUp(cluster)) return;
    }
  }

  /** A connection to ask for the slot map: one that is up when there is one (node-redis falls back to the root nodes). */
  #seed(): unknown {
    const connections = this.#cluster.masters.flatMap((node) =>
      [node.client, node.pubSub?.client].filter((client) => client !== undefined),
    );
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
