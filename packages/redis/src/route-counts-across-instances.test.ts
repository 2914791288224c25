/**
 * A learning router's counts shared through Redis by app instances that are separate Node processes: what one
 * process's flows taught, the next routes by. The first instance and the control run in this process (each with its
 * own connection, router and members, closed when done); the second is a Node process of its own, which knows only
 * what Redis holds. A process costs seconds to start under load (tsx loads the sources), so only the instance whose
 * point is crossing processes is one. Mandatory when CI=true; skipped, with the reason printed, when Redis is
 * unreachable and CI is not set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisRouteCounts } from './redis-route-counts.js';
import {
  runRouteCountsHere,
  runRouteCountsInstance,
  type RouteCountsInstance,
} from './route-counts-instance.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const unavailable = await redisSkipReason('route counts across instances');
const namespaces: string[] = [];

/** One instance's settings: `flows` flows, people verifying only codes `third` sent. */
const instance = (namespace: string, flows: number, seed: number, offset: number): RouteCountsInstance => ({
  namespace,
  url: redisUrl,
  flows,
  seed,
  verifies: 'third',
  offset,
});

afterAll(async () => {
  if (unavailable === undefined) await Promise.all(namespaces.map((namespace) => deleteNamespace(namespace)));
});

describe.skipIf(unavailable !== undefined)('route counts across instances (Redis)', () => {
  it('a second process routes by the flows the first one counted, and adds its own', { timeout: 120_000 }, async () => {
    const shared = uniqueNamespace('routes');
    const alone = uniqueNamespace('routes-alone');
    namespaces.push(shared, alone);
    const first = await runRouteCountsHere(instance(shared, 150, 1, 0));
    expect(first.chosen.slice(-50).filter((member) => member === 'third').length).toBeGreaterThan(40);
    // Same seed, same code: a process of its own with the first one's counts, and a control on a namespace of its own.
    const second = await runRouteCountsInstance(instance(shared, 30, 2, 150));
    const fresh = await runRouteCountsHere(instance(alone, 30, 2, 0));
    const thirds = (chosen: string[]) => chosen.slice(0, 10).filter((member) => member === 'third').length;
    expect(thirds(second.chosen)).toBeGreaterThanOrEqual(9);
    expect(thirds(fresh.chosen)).toBeLessThan(thirds(second.chosen));
    // Both processes' flows are in the shared counts: 180 sent, the verified ones those `third` sent.
    const store = createRedisStore({ url: redisUrl, namespace: shared });
    try {
      const tallies = await createRedisRouteCounts({ store }).read('sms:234803');
      const sum = (field: 'sent' | 'verified') =>
        Object.values(tallies).reduce((total, tally) => total + tally[field], 0);
      expect(Math.round(sum('sent'))).toBe(180);
      const byThird = [...first.chosen, ...second.chosen].filter((member) => member === 'third').length;
      expect(Math.round(tallies.third!.sent)).toBe(byThird);
      expect(Math.round(sum('verified'))).toBe(byThird);
      expect(second.table[0]).toMatchObject({ route: 'sms:234803', member: 'third' });
    } finally {
      await store.close();
    }
  });
});
