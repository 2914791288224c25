/**
 * A learning router's counts shared through Redis Cluster by app instances that are separate Node processes: two
 * routes (MTN and Airtel numbers), each route one hash in its own slot, the list of routes a set in another, so the
 * counts are spread over the cluster's masters; two processes at once learn from each other's flows, and a third
 * routes by what they taught. Mandatory when
 * CI=true (the cluster of .ci/run); skipped, with the reason printed, when no cluster is reachable and CI is not set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace } from './redis-cluster.fixtures.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisRouteCounts } from './redis-route-counts.js';
import { runRouteCountsInstance } from './route-counts-instance.fixtures.js';
import { uniqueNamespace } from './redis-test-env.fixtures.js';

const unavailable = await clusterSkipReason('route counts on Redis Cluster');
const namespaces: string[] = [];
const prefixes = ['+234803', '+234802'];

/** Runs one instance to its end: `flows` flows over both routes, people verifying only codes `third` sent. */
const instance = (namespace: string, flows: number, seed: number, offset: number) =>
  runRouteCountsInstance({ namespace, url: '', clusterUrls, prefixes, flows, seed, verifies: 'third', offset });

afterAll(async () => {
  if (unavailable === undefined)
    await Promise.all(namespaces.map((namespace) => deleteClusterNamespace(clusterUrls, namespace)));
});

describe.skipIf(unavailable !== undefined)('route counts on Redis Cluster, across processes', () => {
  it('two processes at once learn from each other, and a third starts from what they taught', {
    timeout: 180_000,
  }, async () => {
    const [shared, alone] = [uniqueNamespace('routes-cluster'), uniqueNamespace('routes-cluster-alone')];
    namespaces.push(shared, alone);
    // Two instances at the same time on the shared counts (each start reads them: each routes by both's flows).
    const together = await Promise.all([instance(shared, 150, 1, 0), instance(shared, 150, 3, 150)]);
    for (const { chosen } of together)
      expect(chosen.slice(-50).filter((member) => member === 'third').length).toBeGreaterThan(40);
    // Then the same seed and code twice: with their counts, and on counts of its own.
    const late = await instance(shared, 40, 2, 300);
    const fresh = await instance(alone, 40, 2, 0);
    const thirds = (chosen: string[]) => chosen.slice(0, 20).filter((member) => member === 'third').length;
    expect(thirds(late.chosen)).toBeGreaterThanOrEqual(18);
    expect(thirds(fresh.chosen)).toBeLessThan(thirds(late.chosen));
    // Every process's flows are in the shared counts, on both routes: 340 sent, the verified ones those `third` sent.
    const store = createRedisClusterStore({ urls: [...clusterUrls], namespace: shared });
    try {
      const counts = createRedisRouteCounts({ store });
      expect([...(await counts.routes())].sort()).toEqual(['sms:234802', 'sms:234803']);
      const tallies = [
        ...Object.values(await counts.read('sms:234802')),
        ...Object.values(await counts.read('sms:234803')),
      ];
      const total = (field: 'sent' | 'verified') => Math.round(tallies.reduce((sum, tally) => sum + tally[field], 0));
      const byThird = [...together[0].chosen, ...together[1].chosen, ...late.chosen].filter(
        (member) => member === 'third',
      ).length;
      expect(total('sent')).toBe(340);
      expect(total('verified')).toBe(byThird);
      expect(late.table.filter((row) => row.member === 'third').map((row) => row.route)).toEqual([
        'sms:234802',
        'sms:234803',
      ]);
    } finally {
      await store.close();
    }
  });
});
