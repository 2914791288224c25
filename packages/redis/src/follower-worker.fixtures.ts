/**
 * A follower instance of followers-across-processes.test.ts, run as its own Node process (see `useWorkerProcesses`).
 * For each plan, on "go", it follows each flow in short episodes until the flow reaches its last version: subscribe,
 * wait until Redis confirmed the subscription, read the flow, hear a few changes, unsubscribe, pause a moment, again.
 * Each episode's SUBSCRIBE lands somewhere between two commits of the parent, which commits without the view whenever
 * Redis says nobody follows. It reports every episode: the version read and the versions heard after it.
 */
import { createVerikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { parentMessages } from './multi-process.fixtures.js';
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisStore } from './create-redis-store.js';

/** What the parent asks for: where, and each flow's last version. */
export interface FollowerPlan {
  readonly url: string;
  readonly clusterUrls?: readonly string[];
  readonly pubSub?: 'classic' | 'sharded';
  readonly namespace: string;
  readonly secret: string;
  readonly flows: ReadonlyArray<{ flowId: string; last: number }>;
}

/** One episode of following a flow. */
export interface FollowEpisode {
  readonly flowId: string;
  /** The version read once the subscription was live. */
  readonly read: number;
  /** Every version heard while subscribed, in order of arrival. */
  readonly heard: number[];
  /** The version the episode waited for (it ends there), and whether it came (at most 5 s after it was committed). */
  readonly awaited: number;
  readonly arrived: boolean;
  /** The version stored when the episode last read it (an episode that arrived at once: the awaited one). */
  readonly storedAtEnd: number;
}

const worker = Number(process.argv[2] ?? '0');
const send = (message: unknown) => process.send!(message);
const next = parentMessages();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

send({ booted: worker });
for (let plan = await next(); plan !== 'done'; plan = await next())
  send({ report: await follow(plan as FollowerPlan) });
process.disconnect();

async function follow(plan: FollowerPlan): Promise<FollowEpisode[]> {
  const store = plan.clusterUrls
    ? createRedisClusterStore({ urls: plan.clusterUrls, namespace: plan.namespace })
    : createRedisStore({ url: plan.url, namespace: plan.namespace });
  await store.connect();
  const changeBus = createRedisChangeBus({ store, ...(plan.pubSub ? { pubSub: plan.pubSub } : {}) });
  const verikit = createVerikit({
    provider: createTestProviderV1(),
    store,
    changeBus,
    secret: plan.secret,
    guard: false,
  });
  const episodes: FollowEpisode[] = [];

  async function episode(flowId: string, last: number): Promise<number> {
    const heard: number[] = [];
    let wake: () => void = () => {};
    const unsubscribe = verikit.subscribe(flowId, (view) => {
      heard.push(view.version);
      wake();
    });
    try {
      await verikit.subscribed(flowId);
      const read = (await verikit.get(flowId)).version;
      if (read >= last) {
        episodes.push({ flowId, read, heard: [...heard], awaited: last, arrived: true, storedAtEnd: read });
        return read;
      }
      const awaited = Math.min(last, read + 1 + Math.floor(Math.random() * 3));
      const heardWithin = (ms: number) =>
        new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), ms);
          wake = () => {
            if ((heard.at(-1) ?? 0) < awaited) return;
            clearTimeout(timer);
            resolve(true);
          };
          wake();
        });
      // Waits as long as the awaited version is not committed (the parent may be slow under load); once it is, the
      // change has 5 s to arrive, or it was missed.
      let arrived = await heardWithin(1000);
      let storedAtEnd = awaited;
      while (!arrived) {
        storedAtEnd = (await verikit.get(flowId)).version;
        if (storedAtEnd >= awaited) {
          arrived = await heardWithin(5000);
          break;
        }
        arrived = await heardWithin(1000);
      }
      episodes.push({ flowId, read, heard: [...heard], awaited, arrived, storedAtEnd });
      return arrived ? awaited : storedAtEnd;
    } finally {
      unsubscribe();
    }
  }

  async function followFlow(flowId: string, last: number): Promise<void> {
    await pause(Math.random() * 20);
    for (let reached = 0; reached < last; ) {
      reached = await episode(flowId, last);
      // A missed change shows as an episode that did not arrive: stop following that flow (the parent fails).
      if (!episodes.at(-1)!.arrived) return;
      await pause(Math.random() * 4);
    }
  }

  send({ ready: worker });
  await next();
  await Promise.all(plan.flows.map(({ flowId, last }) => followFlow(flowId, last)));
  await changeBus.close();
  await store.close();
  return episodes;
}
