/**
 * Redis Cluster for the tests: the shared CI cluster (`REDIS_CLUSTER_URLS`, started by
 * scripts/ci/redis-cluster.sh), and private clusters for tests that kill a node, started with the
 * same script in their own directory. Only servers started here are ever stopped, by PID.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@keyv/redis';
import { createVerikit, type FlowPolicies, type Verikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { createRedisChangeBus, type RedisChangeBus } from './redis-change-bus.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import type { PubSubMode } from './subscriber-link.js';
import { redisRequired } from './redis-test-env.fixtures.js';

const run = promisify(execFile);
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const script = join(repositoryRoot, 'scripts/ci/redis-cluster.sh');

/** Seed URLs of the shared test cluster, from `REDIS_CLUSTER_URLS` (comma-separated). */
export const clusterUrls: readonly string[] = (process.env.REDIS_CLUSTER_URLS ?? '').split(',').filter(Boolean);

/** A plain connection to one node, that gives up at once when the node is down. */
function connectionTo(url: string) {
  return createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
}

type NodeClient = ReturnType<typeof connectionTo>;

/** Runs `command` on one node (a plain connection), then closes it. */
export async function onNode<T>(url: string, command: (client: NodeClient) => Promise<T>): Promise<T> {
  const client = connectionTo(url);
  client.on('error', () => {});
  await client.connect();
  try {
    return await command(client);
  } finally {
    if (client.isOpen) client.destroy();
  }
}

/**
 * Decides whether a cluster suite runs: the reason to skip (printed), or undefined to run. With
 * CI=true a missing or broken cluster throws, failing the suite.
 */
export async function clusterSkipReason(suite: string): Promise<string | undefined> {
  let reason: string | undefined;
  if (clusterUrls.length === 0) reason = 'REDIS_CLUSTER_URLS is not set';
  else {
    const state = await onNode(clusterUrls[0]!, (client) => client.sendCommand(['CLUSTER', 'INFO'])).then(
      String,
      (error: unknown) => `unreachable (${String(error)})`,
    );
    if (!state.includes('cluster_state:ok'))
      reason = `the cluster at ${clusterUrls[0]} is not ready: ${state.split('\n')[0]}`;
  }
  if (reason === undefined) return undefined;
  if (redisRequired)
    throw new Error(
      `${suite}: ${reason}, and CI=true makes the cluster tests mandatory (run: REDIS_CLUSTER_URLS="$(scripts/ci/redis-cluster.sh start)")`,
    );
  console.warn(
    `[skip] ${suite}: ${reason}. Start one with: export REDIS_CLUSTER_URLS="$(scripts/ci/redis-cluster.sh start)"; with CI=true it is mandatory.`,
  );
  return reason;
}

/**
 * Polls `check` every `stepMs` until it is true or `timeoutMs` passed, and says whether it became true: a test waits
 * for a condition with a generous bound, never for a fixed number of sleeps (a loaded machine stretches both).
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  stepMs = 25,
): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
}

/** Why a private cluster cannot be started here (no redis-server or redis-cli), or undefined. */
export async function privateClusterMissing(suite: string): Promise<string | undefined> {
  const missing = await Promise.all(
    ['redis-server', 'redis-cli'].map((tool) =>
      run(tool, ['--version']).then(
        () => undefined,
        () => tool,
      ),
    ),
  );
  const absent = missing.filter(Boolean);
  if (absent.length === 0) return undefined;
  const reason = `${absent.join(' and ')} not on PATH`;
  if (redisRequired) throw new Error(`${suite}: ${reason}, and CI=true makes the cluster tests mandatory`);
  console.warn(`[skip] ${suite}: ${reason}. Install redis-server to run it; with CI=true it is mandatory.`);
  return reason;
}

/** Deletes every key under `namespace::` on every master of the cluster. */
export async function deleteClusterNamespace(urls: readonly string[], namespace: string): Promise<void> {
  const masters = await mastersOf(urls[0]!);
  for (const master of masters) {
    await onNode(master.url, async (client) => {
      for await (const keys of client.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 })) {
        for (const key of keys) await client.unlink(key);
      }
    });
  }
}

/** One master and the slot ranges it serves, as a node sees them. */
export interface ClusterMaster {
  readonly url: string;
  readonly port: number;
  readonly slots: ReadonlyArray<readonly [number, number]>;
}

/** The masters serving slots, as the node at `url` sees them (CLUSTER SLOTS). */
export async function mastersOf(url: string): Promise<ClusterMaster[]> {
  const reply = (await onNode(url, (client) => client.sendCommand(['CLUSTER', 'SLOTS']))) as Array<
    [number, number, [string, number, ...unknown[]], ...unknown[]]
  >;
  const byPort = new Map<number, Array<readonly [number, number]>>();
  for (const [from, to, [, port]] of reply)
    byPort.set(Number(port), [...(byPort.get(Number(port)) ?? []), [Number(from), Number(to)]]);
  return [...byPort].map(([port, slots]) => ({ url: `redis://127.0.0.1:${port}`, port, slots }));
}

/** The slot of a key (CLUSTER KEYSLOT on `url`). */
export async function slotOf(url: string, key: string): Promise<number> {
  return Number(await onNode(url, (client) => client.sendCommand(['CLUSTER', 'KEYSLOT', key])));
}

/**
 * A cluster of its own (3 masters, 3 replicas) for a test that kills a node, with a short
 * `cluster-node-timeout` so a failover takes about two seconds.
 */
export class PrivateCluster {
  readonly urls: readonly string[];
  readonly #dir: string;

  private constructor(dir: string, urls: readonly string[]) {
    this.#dir = dir;
    this.urls = urls;
  }

  static async start(nodeTimeoutMs = 1000): Promise<PrivateCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'verikit-private-cluster-'));
    const { stdout } = await run(script, ['start'], {
      env: { ...process.env, VERIKIT_CLUSTER_DIR: dir, VERIKIT_CLUSTER_NODE_TIMEOUT: String(nodeTimeoutMs) },
      timeout: 60_000,
    });
    return new PrivateCluster(dir, stdout.trim().split(','));
  }

  /**
   * Sets `cluster-require-full-coverage` on every node (Redis's default is `yes`: while any slot has no master, every
   * node refuses every key with CLUSTERDOWN, its own slots included).
   */
  async requireFullCoverage(required: boolean): Promise<void> {
    for (const url of this.urls)
      await onNode(url, (client) =>
        client.sendCommand(['CONFIG', 'SET', 'cluster-require-full-coverage', required ? 'yes' : 'no']),
      );
  }

  /** SIGKILL to the server on `port` (one started by this cluster: its PID file is in the cluster's directory). */
  kill(port: number): void {
    process.kill(this.#pid(port), 'SIGKILL');
  }

  /** SIGSTOP to the server on `port`: it hangs (its connections stay open, nothing is answered) until {@link thaw}. */
  freeze(port: number): void {
    process.kill(this.#pid(port), 'SIGSTOP');
  }

  /** SIGCONT to a server {@link freeze} stopped. */
  thaw(port: number): void {
    try {
      process.kill(this.#pid(port), 'SIGCONT');
    } catch {
      // Already gone.
    }
  }

  #pid(port: number): number {
    return Number(readFileSync(join(this.#dir, String(port), 'redis.pid'), 'utf8'));
  }

  /** Waits (up to 20 s) until the master on `port` has caught every replica up (their offsets equal its own). */
  async replicated(port: number): Promise<void> {
    const caughtUp = await waitUntil(async () => {
      const info = String(
        await onNode(`redis://127.0.0.1:${port}`, (client) => client.sendCommand(['INFO', 'replication'])),
      );
      const own = Number(/master_repl_offset:(\d+)/.exec(info)?.[1]);
      const replicas = [...info.matchAll(/^slave\d+:.*offset=(\d+)/gm)].map((match) => Number(match[1]));
      return replicas.length > 0 && replicas.every((offset) => offset === own);
    }, 20_000);
    if (!caughtUp) throw new Error(`the replicas of ${port} did not catch up`);
  }

  /** Resolves once a node other than `deadPort` serves every slot `deadPort` served (the replica was promoted). */
  async promoted(deadPort: number, slots: ReadonlyArray<readonly [number, number]>): Promise<void> {
    const witness = this.urls.find((url) => !url.endsWith(`:${deadPort}`))!;
    const promoted = await waitUntil(async () => {
      const masters = await mastersOf(witness).catch(() => []);
      return slots.every(([from]) =>
        masters.some((master) => master.port !== deadPort && master.slots.some(([a, b]) => a <= from && from <= b)),
      );
    }, 30_000);
    if (!promoted) throw new Error(`no replica of ${deadPort} was promoted`);
  }

  /** Stops every server of this cluster (by PID) and removes its directory. */
  async stop(): Promise<void> {
    await run(script, ['stop'], { env: { ...process.env, VERIKIT_CLUSTER_DIR: this.#dir } });
  }
}

/** What {@link clusterInstance} makes an app instance of. */
export interface ClusterInstanceOptions {
  readonly urls: readonly string[];
  readonly namespace: string;
  readonly secret: string;
  readonly policies: Partial<FlowPolicies>;
  readonly pubSub?: PubSubMode;
  readonly onResync?: (flowIds: readonly string[]) => void;
}

/**
 * An app instance of the failover tests: a cluster store, a change bus over it and an engine on the test provider,
 * without the send guard. Its engine, store and bus are pushed on `owned`, for the test to close (engines first).
 */
export function clusterInstance(
  owned: { stores: RedisFlowStore[]; buses: RedisChangeBus[]; engines: Verikit[] },
  options: ClusterInstanceOptions,
): { store: RedisFlowStore; changeBus: RedisChangeBus; verikit: Verikit } {
  const { urls, namespace, secret, policies, pubSub, onResync } = options;
  const store = createRedisClusterStore({ urls, namespace });
  const changeBus = createRedisChangeBus({ store, ...(pubSub ? { pubSub } : {}), ...(onResync ? { onResync } : {}) });
  owned.stores.push(store);
  owned.buses.push(changeBus);
  const verikit = createVerikit({ provider: createTestProviderV1(), store, changeBus, secret, policies, guard: false });
  owned.engines.push(verikit);
  return { store, changeBus, verikit };
}
