/**
 * Runs one app instance of the shared route-counts tests as its own Node process (route-counts-worker.fixtures.ts)
 * to its end, and gives back which member sent each of its flows and the table its router believed at the end.
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouteBelief } from '@verikit/provider-utils';

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

export function runRouteCountsInstance(
  settings: RouteCountsInstance,
): Promise<{ chosen: string[]; table: RouteBelief[] }> {
  return new Promise((resolve, reject) => {
    const child = fork(join(here, 'route-counts-worker.fixtures.ts'), [JSON.stringify(settings)], {
      execArgv: ['--import', 'tsx', '--conditions=@verikit/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (message) => resolve(message as { chosen: string[]; table: RouteBelief[] }));
    child.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
}
