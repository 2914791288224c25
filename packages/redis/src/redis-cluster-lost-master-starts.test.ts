/**
 * What a lost master costs the starts of every flow, with Redis's default `cluster-require-full-coverage yes` and with
 * `no` (issue 35, finding 7; docs/scaling.md, "During a failover"). A start touches several keys, each on the master
 * of its own slot: the flow's record, the number's send count, its delivery route, and with the send guard its counts.
 * From the kill of a master until its replica serves, starts are made in rounds on two instances (one with the send
 * guard, one without) and counted: the shares are printed as `[measured]`, not asserted (they depend on when each
 * round falls in the outage). Asserted: every failure is a retryable StoreError (HTTP 503), and once the replica
 * serves, every start succeeds again (called lost after 60 s).
 */
import { createVerikit, silentLogger, StoreError, type Verikit } from '@verikit/core';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { mastersOf, PrivateCluster, privateClusterMissing, waitUntil } from './redis-cluster.fixtures.js';
import type { RedisFlowStore } from './redis-flow-store.js';

const missing = await privateClusterMissing('@verikit/redis starts while a master is lost');
const secret = 'redis-lost-master-starts-secret-0123456789';
const recoveryDeadlineMs = 60_000;

/** `count` starts at once on `verikit`, to fresh numbers: how many succeeded, and the failures. */
async function round(verikit: Verikit, count: number): Promise<{ sent: number; failures: unknown[] }> {
  const outcomes = await Promise.all(
    Array.from({ length: count }, () =>
      verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() }).then(
        () => undefined,
        (error: unknown) => error ?? new Error('rejected without a reason'),
      ),
    ),
  );
  const failures = outcomes.filter((outcome) => outcome !== undefined);
  return { sent: count - failures.length, failures };
}

describe.skipIf(missing !== undefined)('starts while a master is lost (a private cluster)', () => {
  const clusters: PrivateCluster[] = [];
  const stores: RedisFlowStore[] = [];

  afterAll(async () => {
    for (const store of stores) await store.disconnect().catch(() => undefined);
    for (const cluster of clusters) await cluster.stop();
  });

  it.each([
    { fullCoverage: true, label: 'cluster-require-full-coverage yes (the default)' },
    { fullCoverage: false, label: 'cluster-require-full-coverage no' },
  ])(
    '$label: failures are retryable StoreErrors, and every start succeeds once the replica serves',
    async ({ fullCoverage }) => {
      const cluster = await PrivateCluster.start(1000);
      clusters.push(cluster);
      await cluster.requireFullCoverage(fullCoverage);
      const namespace = `lost-master-starts-${fullCoverage ? 'full' : 'partial'}`;
      const instance = (guarded: boolean) => {
        const store = createRedisClusterStore({ urls: cluster.urls, namespace });
        stores.push(store);
        return createVerikit({
          provider: createTestProviderV1(),
          store,
          secret,
          logger: silentLogger,
          // The default guard's keys (the per-client count needs a client address: left out, as for a server-side
          // start), with limits these starts do not reach: a refusal is not what is measured.
          guard: guarded ? { perClient: false, perPrefix: { points: 100_000 }, global: { points: 100_000 } } : false,
        });
      };
      const tallies = {
        guarded: { verikit: instance(true), sent: 0, made: 0, failures: [] as unknown[] },
        unguarded: { verikit: instance(false), sent: 0, made: 0, failures: [] as unknown[] },
      };
      for (const tally of Object.values(tallies))
        expect(await round(tally.verikit, 10)).toEqual({ sent: 10, failures: [] });

      const [victim] = await mastersOf(cluster.urls[0]!);
      cluster.kill(victim!.port);
      let promoted = false;
      const promotion = cluster.promoted(victim!.port, victim!.slots).then(() => {
        promoted = true;
      });
      while (!promoted) {
        await Promise.all(
          Object.values(tallies).map(async (tally) => {
            const { sent, failures } = await round(tally.verikit, 10);
            tally.made += 10;
            tally.sent += sent;
            tally.failures.push(...failures);
          }),
        );
      }
      await promotion;
      for (const [name, tally] of Object.entries(tallies))
        console.info(
          `[measured] full coverage ${fullCoverage ? 'yes' : 'no'}, ${name}: ${tally.made - tally.sent} of ${tally.made} starts failed between the kill and the promotion`,
        );
      for (const tally of Object.values(tallies))
        for (const failure of tally.failures) {
          expect(StoreError.isInstance(failure), String(failure)).toBe(true);
          expect((failure as StoreError).isRetryable, String(failure)).toBe(true);
        }

      // Recovery: a round in which every start succeeds, on each instance.
      for (const tally of Object.values(tallies)) {
        const recovered = await waitUntil(
          async () => (await round(tally.verikit, 10)).sent === 10,
          recoveryDeadlineMs,
          250,
        );
        expect(recovered, 'every start succeeds again after the promotion').toBe(true);
      }
    },
    150_000,
  );
});
