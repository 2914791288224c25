import { createVerikit, StoreError } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { mastersOf, PrivateCluster, privateClusterMissing, slotOf } from './redis-cluster.fixtures.js';
import type { RedisFlowStore } from './redis-flow-store.js';

const missing = await privateClusterMissing('@verikit/redis send guard under a lost master');
const secret = 'redis-guard-outage-secret-0123456789abcd';

let numberSeed = Math.floor(Math.random() * 40_000_000);
function freshPhoneNumber(): string {
  numberSeed += 1;
  return `+234806${String(numberSeed % 10_000_000).padStart(7, '0')}`;
}

/** The key the whole global budget lived in before it was spread (its master holds a share of the shards now). */
const oneKey = 'guard-outage::guard:global:all';

/** The master serving `oneKey`'s slot, as a node other than `not` sees it. */
async function masterOfTheKey(urls: readonly string[], not?: number) {
  const witness = urls.find((url) => !url.endsWith(`:${not}`))!;
  const slot = await slotOf(witness, oneKey);
  const masters = await mastersOf(witness);
  return masters.find((master) => master.slots.some(([from, to]) => from <= slot && slot <= to))!;
}

/** 30 starts at once to 30 numbers; the outcomes. */
async function starts(verikit: ReturnType<typeof createVerikit>) {
  const outcomes = await Promise.all(
    Array.from({ length: 30 }, () =>
      verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() }).then(
        () => 'sent' as const,
        (error: unknown) => error,
      ),
    ),
  );
  const failures = outcomes.filter((outcome) => outcome !== 'sent');
  return { sent: outcomes.length - failures.length, failures };
}

describe.skipIf(missing !== undefined)(
  "the send guard's global budget when a master holding part of it dies or hangs (a private cluster)",
  () => {
    const stores: RedisFlowStore[] = [];
    let cluster: PrivateCluster | undefined;

    afterAll(async () => {
      for (const store of stores) await store.disconnect().catch(() => undefined);
      await cluster?.stop();
    });

    it('starts for numbers the lost master does not serve still succeed: no start fails on the guard', async () => {
      cluster = await PrivateCluster.start(1000);
      const store = createRedisClusterStore({ urls: cluster.urls, namespace: 'guard-outage' });
      stores.push(store);
      const provider = createTestProviderV1();
      // The global budget only: the per-prefix count is one key too, and its outage is that prefix's alone.
      const verikit = createVerikit({
        provider,
        store,
        secret,
        guard: { perClient: false, perPrefix: false, global: { points: 1000 } },
      });
      const before = await starts(verikit);
      expect(before).toEqual({ sent: 30, failures: [] });

      const guardFailures = (failures: unknown[]) =>
        failures.filter((error) => !StoreError.isInstance(error) || /send guard/.test((error as Error).message));

      // Killed: the sends whose own flow lives on the dead master fail (a StoreError naming the flow store); the
      // guard never makes one fail.
      const killed = await masterOfTheKey(cluster.urls);
      cluster.kill(killed.port);
      const whileDead = await starts(verikit);
      expect(guardFailures(whileDead.failures), String(whileDead.failures)).toEqual([]);
      expect(whileDead.sent).toBeGreaterThan(0);

      // Hung: the replica now serving that slot is frozen (it has no replica left, so it stays the master).
      await cluster.promoted(killed.port, killed.slots);
      const hung = await masterOfTheKey(cluster.urls, killed.port);
      cluster.freeze(hung.port);
      try {
        const whileHung = await starts(verikit);
        expect(guardFailures(whileHung.failures), String(whileHung.failures)).toEqual([]);
        expect(whileHung.sent).toBeGreaterThan(0);
        console.info(
          `[measured] guard outage: ${whileDead.sent}/30 sent with a master of the budget dead, ${whileHung.sent}/30 with one hung`,
        );
      } finally {
        cluster.thaw(hung.port);
      }
    }, 120_000);
  },
);
