/**
 * `pnpm bench routing`: what a learning router with its counts on Redis adds to a start. Phone flows are started one
 * after another (distinct numbers over four Nigerian operators' prefixes, guard off) by two engines on the same Redis
 * store: one whose provider is `withFailover` over three test-double members, one whose `withFailover` has a
 * `createLearningRouter` on `createRedisRouteCounts` (each start reads its route's hash and counts its send with one
 * script), reading its counts every 1 s (the default) or on every start. The arms run in rotating rounds; every start
 * is timed, and so is the time each start spends in the router (`choose`: the read, the sampling), which is what
 * routing adds to a start (its counting write is not awaited by the start). Printed: p50 and p99 of each. The row:
 * the p99 of the time in the router, beside the p99 of a start without one, against the issue's goal of at most 1
 * ms. (The p99 of whole starts differs between arms by more than that from load alone on a shared machine.)
 */
import { randomUUID } from 'node:crypto';
import { createVerikit, type Verikit } from '@verikit/core';
import { createLearningRouter, withFailover, type FailoverRouter } from '@verikit/provider-utils';
import { createRedisRouteCounts, createRedisStore } from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { sized } from './mode.js';
import { percentile, type SummaryRow } from './summary.js';

const secret = 'bench-secret-bench-secret-bench-secret';
const rounds = sized(6, 2);
const startsPerRound = sized(1000, 150);
const policies = { maxSendsPerHour: 1_000_000 };
const prefixes = ['+234803', '+234802', '+234805', '+234809'];
let next = 0;

/** Times `count` starts, one after another, each to a new number: their durations in ms. */
async function timedStarts(verikit: Verikit, count: number, into: number[]): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    next += 1;
    const phoneNumber = `${prefixes[next % prefixes.length]}${String(1_000_000 + (next % 9_000_000)).slice(-7)}`;
    const started = performance.now();
    await verikit.start({ kind: 'phone', phoneNumber });
    into.push(performance.now() - started);
  }
}

export async function run(): Promise<SummaryRow[]> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const namespace = `vk-bench-routing-${process.pid}-${randomUUID().slice(0, 8)}`;
  const store = createRedisStore({ url, namespace });
  const measure = 'routing: p99 a learning router adds to a start (Redis)';
  try {
    await store.connect();
  } catch {
    console.log(`routing: skipped (no Redis at ${url})`);
    await store.disconnect();
    return [
      { measure, value: 'not measured (no Redis)', baseline: '—', ratio: undefined, goal: '≤ 1 ms', met: undefined },
    ];
  }
  const members = () =>
    ['termii', 'twilio', 'gateway'].map((name) => createTestProviderV1({ name, channels: ['sms'] }));
  const plain = createVerikit({ provider: withFailover(members()), store, secret, policies, guard: false });
  const inChoose: number[] = [];
  const routed = (readEveryMs: number, times: number[]) => {
    const router = createLearningRouter({ counts: createRedisRouteCounts({ store }), seed: 1, readEveryMs });
    const timed: FailoverRouter = {
      async choose(request) {
        const started = performance.now();
        const choice = await router.choose(request);
        times.push(performance.now() - started);
        return choice;
      },
      record: (...args) => router.record(...args),
    };
    return createVerikit({
      provider: withFailover(members(), { router: timed }),
      store,
      secret,
      policies,
      guard: false,
    });
  };
  const inChooseEveryStart: number[] = [];
  const arms = [
    { label: 'without a router', verikit: plain, starts: [] as number[], choose: undefined },
    {
      label: 'learning router (reads every 1 s, in the background)',
      verikit: routed(1000, inChoose),
      starts: [] as number[],
      choose: inChoose,
    },
    {
      label: 'learning router (reads on every start)',
      verikit: routed(0, inChooseEveryStart),
      starts: [] as number[],
      choose: inChooseEveryStart,
    },
  ];
  try {
    for (const arm of arms) await timedStarts(arm.verikit, Math.ceil(startsPerRound / 5), []);
    for (const arm of arms) arm.choose?.splice(0);
    // Rotating which goes first, so that none always runs on a warmer (or more collected) heap.
    for (let round = 0; round < rounds; round += 1)
      for (let offset = 0; offset < arms.length; offset += 1) {
        const arm = arms[(round + offset) % arms.length]!;
        await timedStarts(arm.verikit, startsPerRound, arm.starts);
      }
  } finally {
    const client = store.client as unknown as {
      scanIterator(options: object): AsyncIterable<string[]>;
      unlink(keys: string[]): Promise<number>;
    };
    for await (const keys of client.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 }))
      if (keys.length > 0) await client.unlink(keys);
    await store.close();
  }
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  for (const arm of arms)
    console.log(
      `routing: ${arm.label}: ${arm.starts.length} starts, p50 ${ms(percentile(arm.starts, 0.5))}, p99 ${ms(percentile(arm.starts, 0.99))}${
        arm.choose === undefined
          ? ''
          : `; in the router per start p50 ${ms(percentile(arm.choose, 0.5))}, p99 ${ms(percentile(arm.choose, 0.99))}`
      }`,
    );
  const p99Plain = percentile(arms[0]!.starts, 0.99);
  const added = percentile(inChoose, 0.99);
  return [
    {
      measure,
      value: ms(added),
      baseline: `start p99 ${ms(p99Plain)} without a router`,
      ratio: added / p99Plain,
      goal: '≤ 1 ms',
      met: added <= 1,
    },
  ];
}
