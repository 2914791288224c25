import { createVerikit } from '@verikit/core';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import type { FollowEpisode, FollowerPlan } from './follower-worker.fixtures.js';
import { scriptedInstance } from './redis-bus.fixtures.js';
import { createRedisChangeBus, type RedisChangeBus } from './redis-change-bus.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace } from './redis-cluster.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';
import { useWorkerProcesses } from './worker-processes.fixtures.js';

/**
 * A commit of a flow nobody follows leaves its view out, Redis saying in the compare-and-set script whether anybody
 * subscribes (docs/decisions/1400-no-view-for-a-flow-nobody-follows.md). Two follower processes subscribe to the
 * flows this process commits, again and again, each subscription landing somewhere between two commits: every
 * follower must hear every change after the version it read, in order, with no gap.
 */
const oneRedis = await redisSkipReason('@verikit/redis followers across processes');
const cluster = await clusterSkipReason('@verikit/redis followers across processes on Redis Cluster');
const secret = 'followers-across-processes-secret-0123456789';
const flowsPerPlan = 6;
const submitsPerFlow = 40;

const targets = [
  { name: 'one Redis, classic pub/sub, asking on every commit', skipReason: oneRedis, hintMs: 0 },
  { name: 'one Redis, classic pub/sub, with the followed hint', skipReason: oneRedis },
  { name: 'one Redis, sharded pub/sub, asking on every commit', skipReason: oneRedis, pubSub: 'sharded', hintMs: 0 },
  { name: 'Redis Cluster, sharded pub/sub', skipReason: cluster, cluster: true, pubSub: 'sharded' },
  { name: 'Redis Cluster, classic pub/sub', skipReason: cluster, cluster: true, pubSub: 'classic' },
] as const;

describe.skipIf(oneRedis !== undefined)('followers in other processes, commits without the view', () => {
  const run = useWorkerProcesses<FollowEpisode[]>('follower-worker.fixtures.ts', 2);
  const namespace = uniqueNamespace('followers');
  const stores: RedisFlowStore[] = [];
  const buses: RedisChangeBus[] = [];

  afterAll(async () => {
    for (const bus of buses) await bus.close();
    for (const store of stores) await store.close();
    await deleteNamespace(namespace);
    if (cluster === undefined) await deleteClusterNamespace(clusterUrls, namespace);
  });

  it.each(targets)('$name: every follower hears every change after its read, in order', async (target) => {
    if (target.skipReason !== undefined) return;
    const onCluster = 'cluster' in target;
    const store = onCluster
      ? createRedisClusterStore({ urls: clusterUrls, namespace })
      : createRedisStore({ url: redisUrl, namespace });
    const pubSub = 'pubSub' in target ? target.pubSub : undefined;
    const changeBus = createRedisChangeBus({
      store,
      ...(pubSub ? { pubSub } : {}),
      ...('hintMs' in target ? { followedHintMs: target.hintMs } : {}),
    });
    // The committing instance's scripts: with the view or not, and Redis's answer (2: followed, nothing written).
    const { verikit, scripts } = scriptedInstance({ stores, buses }, store, changeBus, secret);
    const flows = await Promise.all(
      Array.from({ length: flowsPerPlan }, () => verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() })),
    );
    const plan: FollowerPlan = {
      url: redisUrl,
      ...(onCluster ? { clusterUrls } : {}),
      ...(pubSub ? { pubSub } : {}),
      namespace,
      secret,
      // Each wrong code commits twice: submitted, then the provider's answer.
      flows: flows.map((flow) => ({ flowId: flow.id, last: flow.version + 2 * submitsPerFlow })),
    };
    // This process commits while the followers follow: from their "go" on.
    const reports = await run(
      () => plan,
      async () => {
        await Promise.all(
          flows.map(async (flow) => {
            for (let submit = 0; submit < submitsPerFlow; submit += 1) {
              await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
              await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
            }
          }),
        );
      },
    );
    const episodes = reports.flat();
    expect(episodes.length).toBeGreaterThan(flowsPerPlan * 2);
    for (const episode of episodes) {
      const after = episode.heard.filter((version) => version > episode.read);
      const expected = Array.from({ length: (after.at(-1) ?? episode.read) - episode.read }, (_, index) => {
        return episode.read + 1 + index;
      });
      expect({ ...episode, after }).toEqual({ ...episode, after: expected, arrived: true });
    }
    // Each follower followed each flow to its last version.
    for (const flow of plan.flows) {
      const reached = episodes
        .filter((each) => each.flowId === flow.flowId)
        .map((each) => Math.max(each.read, each.awaited));
      expect(reached.filter((version) => version === flow.last)).toHaveLength(2);
    }
    if (onCluster) {
      // On a cluster a script cannot reach the channel's slot: every change is published, as before.
      expect(changeBus.publishingWrite(store)).toBeUndefined();
    } else {
      // Both paths ran: commits nobody followed (no view) and commits found followed (sent again with the view).
      const followed = scripts.filter((script) => !script.view && script.reply === 2).length;
      expect(scripts.filter((script) => !script.view && script.reply === 1).length).toBeGreaterThan(0);
      expect(followed).toBeGreaterThan(0);
      expect(scripts.filter((script) => script.view).length).toBeGreaterThanOrEqual(followed);
    }
  });

  it.skipIf(cluster !== undefined)(
    'on a cluster with classic pub/sub, a flow nobody follows is still published',
    async () => {
      const store = createRedisClusterStore({ urls: clusterUrls, namespace });
      const changeBus = createRedisChangeBus({ store, pubSub: 'classic' });
      stores.push(store);
      buses.push(changeBus);
      const verikit = createVerikit({ provider: createTestProviderV1(), store, changeBus, secret, guard: false });
      const tap = createClient({ url: clusterUrls[0]! });
      await tap.connect();
      try {
        const heard: number[] = [];
        await tap.pSubscribe(`${changeBus.channelOf('')}*`, (message) => {
          heard.push((JSON.parse(message) as { version: number }).version);
        });
        const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
        const last = await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
        await expect
          .poll(() => heard.filter((version) => version > flow.version))
          .toEqual([last.version - 1, last.version]);
      } finally {
        await tap.quit();
      }
    },
  );
});
