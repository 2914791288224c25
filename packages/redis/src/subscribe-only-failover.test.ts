/**
 * A process that only follows flows (a change bus over a cluster store that it never reads or writes with) must follow
 * a failover as one that also reads does: after a master dies or hangs and its replica is promoted, it hears the
 * changes of every flow again and gets `onResync` for those whose channel was on the lost master (issue 35, finding 6).
 * The follower is a Node process of its own (subscribe-only-worker.fixtures.ts); the flows are written here. Each case
 * has a private cluster, so the shared one is never disturbed. The time recovery took is printed as `[measured]` and
 * never asserted (docs/scaling.md gives the measured range); 60 s without it is a failure.
 */
import type { Verikit } from '@verikit/core';
import { freshPhoneNumber } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerProcess } from './multi-process.fixtures.js';
import type { RedisChangeBus } from './redis-change-bus.js';
import {
  clusterInstance,
  mastersOf,
  onNode,
  PrivateCluster,
  privateClusterMissing,
  slotOf,
  waitUntil,
  type ClusterMaster,
} from './redis-cluster.fixtures.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import type { HeardView, SubscribeOnlyPlan } from './subscribe-only-worker.fixtures.js';

const missing = await privateClusterMissing('@verikit/redis subscribe-only process across a failover');
const secret = 'subscribe-only-failover-secret-0123456789';
const policies = { maxAttempts: 100, maxSendsPerFlow: 100, resendCooldownMs: 0 };
/** How long after the promotion a flow may stay unheard before the test calls it lost (not a speed claim). */
const recoveryDeadlineMs = 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(missing !== undefined)('a subscribe-only process on Redis Cluster across a failover', () => {
  const clusters: PrivateCluster[] = [];
  const workers: WorkerProcess[] = [];
  const stores: RedisFlowStore[] = [];
  const buses: RedisChangeBus[] = [];
  // Closed first: an engine's timers poll its store until it closes, and a poll on a closed store logs a failure.
  const engines: Verikit[] = [];

  afterAll(async () => {
    for (const engine of engines) await engine.close().catch(() => undefined);
    for (const worker of workers) worker.kill();
    for (const bus of buses) await bus.close().catch(() => undefined);
    for (const store of stores) await store.disconnect().catch(() => undefined);
    for (const cluster of clusters) await cluster.stop();
  });

  it.each([
    { lost: 'killed', pubSub: 'sharded' },
    { lost: 'hung', pubSub: 'sharded' },
    { lost: 'hung', pubSub: 'classic' },
  ] as const)(
    'a $lost master, $pubSub pub/sub: the follower hears every flow again and is told to re-read',
    async ({ lost, pubSub }) => {
      const cluster = await PrivateCluster.start(1000);
      clusters.push(cluster);
      const namespace = `subscribe-only-${lost}-${pubSub}`;

      // The writer, in this process.
      const { changeBus, verikit } = clusterInstance(
        { stores, buses, engines },
        { urls: cluster.urls, namespace, secret, policies, pubSub },
      );
      const flows = await Promise.all(
        Array.from({ length: 12 }, () => verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })),
      );
      const masters = await mastersOf(cluster.urls[0]!);
      const channelOf = (flowId: string) => changeBus.channelOf(flowId);

      // The follower: its own process, a bus and nothing else.
      const heard = new Map<string, number>();
      const resyncs: string[][] = [];
      const worker = new WorkerProcess('subscribe-only-worker.fixtures.ts', 0, {
        clusterUrls: cluster.urls,
        namespace,
        pubSub,
        flowIds: flows.map((flow) => flow.id),
      } satisfies SubscribeOnlyPlan);
      workers.push(worker);
      worker.child.on('message', (message: { heard?: HeardView; resync?: string[] }) => {
        if (message.heard)
          heard.set(message.heard.flowId, Math.max(heard.get(message.heard.flowId) ?? 0, message.heard.version));
        if (message.resync) resyncs.push(message.resync);
      });
      await worker.message('ready');

      // The victim holds the follower's subscriptions. Sharded: the master of the first flow's channel (it holds the
      // channels of its slots). Classic: the one node the follower subscribes on (PUBSUB NUMSUB counts there only).
      let victim: ClusterMaster;
      let onVictim: string[];
      if (pubSub === 'sharded') {
        const masterOf = async (flowId: string) => {
          const slot = await slotOf(cluster.urls[0]!, channelOf(flowId));
          return masters.find((master) => master.slots.some(([from, to]) => from <= slot && slot <= to))!;
        };
        victim = await masterOf(flows[0]!.id);
        onVictim = [];
        for (const flow of flows) if ((await masterOf(flow.id)).port === victim.port) onVictim.push(flow.id);
      } else {
        const subscribers = await Promise.all(
          masters.map((master) =>
            onNode(master.url, (client) => client.sendCommand(['PUBSUB', 'NUMSUB', channelOf(flows[0]!.id)])),
          ),
        );
        victim = masters[subscribers.findIndex((reply) => Number((reply as unknown as unknown[])[1]) > 0)]!;
        expect(victim, 'the master holding the classic subscriptions').toBeDefined();
        onVictim = flows.map((flow) => flow.id);
      }

      // Before the loss: the follower hears a change of every flow.
      const wrong = (flowId: string) => verikit.send(flowId, { type: 'submit-code', code: '000000' });
      const before = await Promise.all(flows.map((flow) => wrong(flow.id)));
      expect(
        await waitUntil(() => before.every((view) => (heard.get(view.id) ?? 0) >= view.version), 30_000),
        'heard before the loss',
      ).toBe(true);
      await cluster.replicated(victim.port);

      if (lost === 'killed') cluster.kill(victim.port);
      else cluster.freeze(victim.port);
      await cluster.promoted(victim.port, victim.slots);
      const promotedAt = Date.now();

      // Each flow: a change committed here, and again each second until the follower hears one made after the
      // promotion (a write for the lost master's slots fails until this process's map follows it).
      const heardAfter = new Map<string, number>();
      await Promise.all(
        flows.map(async (flow) => {
          while (Date.now() - promotedAt < recoveryDeadlineMs) {
            const version = await wrong(flow.id).then(
              (view) => view.version,
              () => undefined,
            );
            if (version !== undefined && (await waitUntil(() => (heard.get(flow.id) ?? 0) >= version, 1000))) {
              heardAfter.set(flow.id, Date.now() - promotedAt);
              return;
            }
            if (version === undefined) await sleep(250);
          }
        }),
      );
      const slowest = Math.max(0, ...heardAfter.values());
      console.info(
        `[measured] subscribe-only, ${lost} master, ${pubSub}: every flow heard again ${slowest} ms after the promotion`,
      );
      expect(
        flows.filter((flow) => !heardAfter.has(flow.id)).map((flow) => flow.id),
        `never heard again within ${recoveryDeadlineMs} ms (on the lost master: ${onVictim.join(', ')})`,
      ).toEqual([]);

      // Told to re-read the flows whose channel was on the lost master (what was published meanwhile is lost).
      const toldAll = () => resyncs.some((flowIds) => onVictim.every((id) => flowIds.includes(id)));
      expect(await waitUntil(toldAll, recoveryDeadlineMs), JSON.stringify(resyncs)).toBe(true);

      worker.send('done');
      expect(await worker.exited).toBe(0);
    },
    180_000,
  );
});
