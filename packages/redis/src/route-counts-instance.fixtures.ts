/**
 * One app instance of the shared route-counts tests: run here (`runRouteCountsHere`), or as its own Node process
 * (`runRouteCountsInstance`, through route-counts-worker.fixtures.ts) to show what crosses processes. Either gives
 * back which member sent each of its flows and the table its router believed at the end.
 *
 * A failover provider over three test-double members, routed by a learning router whose counts are on Redis (on a
 * Redis Cluster when `clusterUrls` is given). It runs `flows` flows one after the other, each to an MTN number (or,
 * given `prefixes`, to numbers under each in turn); people type the code back only when `verifies` sent it.
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { createLearningRouter, withFailover, type RouteBelief } from '@verikit/provider-utils';
import { createTestProviderV1 } from '@verikit/testing';
import { createRedisRouteCounts } from './redis-route-counts.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisStore } from './create-redis-store.js';

const here = dirname(fileURLToPath(import.meta.url));

/** What one instance is told: where the counts are, how many flows, the router's seed, numbers from `offset`. */
export interface RouteCountsInstance {
  readonly namespace: string;
  /** One Redis; ignored when `clusterUrls` is given. */
  readonly url: string;
  readonly clusterUrls?: readonly string[];
  /** Numbers under each in turn; default MTN's +234803. */
  readonly prefixes?: readonly string[];
  readonly flows: number;
  readonly seed: number;
  /** People type back only the codes this member sent. */
  readonly verifies: string;
  readonly offset: number;
}

/** What one instance reports: the member that sent each flow, and its router's table at the end. */
export interface RouteCountsRun {
  readonly chosen: string[];
  readonly table: RouteBelief[];
}

/** Runs one instance as its own Node process, to its end. */
export function runRouteCountsInstance(settings: RouteCountsInstance): Promise<RouteCountsRun> {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'route-counts-worker.fixtures.ts'), [JSON.stringify(settings)], {
      execArgv: ['--import', 'tsx', '--conditions=@verikit/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) => resolve(message as RouteCountsRun));
    child.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
}

/**
 * Runs one instance in this process, to its end: its own store connection, router and members, nothing kept in
 * memory after it (the store is closed), so the next instance learns only what Redis holds.
 */
export async function runRouteCountsHere(settings: RouteCountsInstance): Promise<RouteCountsRun> {
  const prefixes = settings.prefixes ?? ['+234803'];
  const routes = prefixes.map((prefix) => `sms:${prefix.slice(1, 7)}`);
  const store =
    settings.clusterUrls === undefined
      ? createRedisStore({ url: settings.url, namespace: settings.namespace })
      : createRedisClusterStore({ urls: [...settings.clusterUrls], namespace: settings.namespace });
  await store.connect();
  try {
    const members = ['first', 'second', 'third'].map((name) => createTestProviderV1({ name, channels: ['sms'] }));
    // A fixed clock: no decay between the instances, so the counts add up exactly.
    const router = createLearningRouter({
      counts: createRedisRouteCounts({ store }),
      seed: settings.seed,
      readEveryMs: 0,
      clock: { now: () => 1_700_000_000_000 },
    });
    const provider = withFailover(members, { router });
    const chosen: string[] = [];
    for (let index = 0; index < settings.flows; index += 1) {
      const context: ProviderCallContextV1 = {
        signal: new AbortController().signal,
        idempotencyKey: `flow-${index}`,
        logger: silentLogger,
      };
      const prefix = prefixes[index % prefixes.length]!;
      const phoneNumber = `${prefix}${String(1_000_000 + settings.offset + index).slice(1)}`;
      const sent = await provider.phone!.send({ phoneNumber, channel: 'sms' }, context);
      chosen.push(sent.sentBy!);
      if (sent.sentBy === settings.verifies) {
        const code = members.find((member) => member.name === sent.sentBy)!.lastCode(phoneNumber)!;
        await provider.phone!.check({ requestId: sent.requestId, code }, context);
      }
    }
    // The counts are written after each call returns (not awaited by it): wait until this instance's writes landed.
    const counts = createRedisRouteCounts({ store });
    for (let waited = 0; waited < 200; waited += 1) {
      let sent = 0;
      for (const route of routes)
        sent += Object.values(await counts.read(route)).reduce((sum, tally) => sum + tally.sent, 0);
      if (sent >= settings.offset + settings.flows) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return { chosen, table: await router.table() };
  } finally {
    await store.close();
  }
}
