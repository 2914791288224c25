/**
 * `pnpm bench guard`: what the send guard costs a start. Phone flows are started, one after another,
 * to distinct numbers by distinct clients (nothing is refused: the limits are set out of reach), by an
 * engine with the guard and the same engine without it, in alternating rounds; medians and their
 * ratio are printed. In memory (rate-limiter-flexible's RateLimiterMemory), then on the Redis at
 * REDIS_URL (RateLimiterRedis on the store's client; skipped when Redis does not answer).
 *
 * Then issue 32's row: the CPU per start of the guard with a rate card, a budget in money (out of reach) and the
 * conversion tripwire (its defaults: it counts every send, and no place trips in a run where nothing is verified for
 * less than 60 s), against today's guard (counts only), in memory, by `process.cpuUsage()` in alternating rounds.
 */
import { randomUUID } from 'node:crypto';
import { createVerikit, type SendGuardOptions, type Verikit } from '@verikit/core';
import { createRedisStore, type RedisFlowStore } from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { sized } from './mode.js';
import { median as medianOf, type SummaryRow } from './summary.js';

const secret = 'bench-secret-bench-secret-bench-secret';
const rounds = sized(5, 1);
const policies = { maxSendsPerHour: 1_000_000 };
const outOfReach: SendGuardOptions = {
  perClient: { points: 1e9 },
  perPrefix: { points: 1e9 },
  global: { points: 1e9 },
};
/** Today's guard, plus prices, a budget out of reach and the tripwire with its defaults. */
const withMoneyAndTripwire: SendGuardOptions = {
  ...outOfReach,
  prices: { currency: 'NGN', prices: [{ channel: 'sms', price: 4.5 }] },
  budget: { perHour: 1e9, perDay: 1e9 },
  tripwire: {},
};
let next = 0;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Starts per second over `count` starts, each to a new number by a new client. */
async function startRate(verikit: Verikit, count: number): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < count; index += 1) {
    next += 1;
    await verikit.start(
      { kind: 'phone', phoneNumber: `+23480${String(10_000_000 + next * 7).slice(-8)}` },
      { client: `client-${next}` },
    );
  }
  return count / ((performance.now() - started) / 1000);
}

async function compare(label: string, guarded: Verikit, bare: Verikit, count: number): Promise<void> {
  await startRate(guarded, Math.ceil(count / 5));
  await startRate(bare, Math.ceil(count / 5));
  const withGuard: number[] = [];
  const without: number[] = [];
  // Alternating which goes first, so that neither always runs on a warmer (or more collected) heap.
  for (let round = 0; round < rounds; round += 1) {
    if (round % 2 === 0) without.push(await startRate(bare, count));
    withGuard.push(await startRate(guarded, count));
    if (round % 2 === 1) without.push(await startRate(bare, count));
  }
  const [on, off] = [median(withGuard), median(without)];
  console.log(
    `${label}: starts/s without the guard ${off.toFixed(0)}, with it ${on.toFixed(0)}; ratio with / without ${(on / off).toFixed(3)}`,
  );
}

/** CPU µs per start over `count` starts, each to a new number by a new client. */
async function cpuPerStart(verikit: Verikit, count: number): Promise<number> {
  const before = process.cpuUsage();
  await startRate(verikit, count);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** Issue 32's row: CPU per start with prices, budget and tripwire over today's guard, in memory. */
async function moneyAndTripwireRow(): Promise<SummaryRow> {
  const provider = createTestProviderV1();
  const today = createVerikit({ provider, secret, policies, guard: outOfReach });
  const added = createVerikit({ provider, secret, policies, guard: withMoneyAndTripwire });
  const count = sized(2000, 200);
  await cpuPerStart(today, count / 4);
  await cpuPerStart(added, count / 4);
  const ratios: number[] = [];
  const [todays, addeds]: [number[], number[]] = [[], []];
  for (let round = 0; round < sized(9, 3); round += 1) {
    const first = round % 2 === 0 ? today : added;
    const a = await cpuPerStart(first, count);
    const b = await cpuPerStart(first === today ? added : today, count);
    const [t, m] = first === today ? [a, b] : [b, a];
    todays.push(t);
    addeds.push(m);
    ratios.push(m / t);
    provider.reset();
  }
  const ratio = medianOf(ratios);
  console.log(
    `memory, CPU per start: today's guard ${medianOf(todays).toFixed(1)} µs, with prices, budget and tripwire ` +
      `${medianOf(addeds).toFixed(1)} µs; ratio ${ratio.toFixed(3)}`,
  );
  await Promise.all([today.close(), added.close()]);
  return {
    measure: 'guard with prices, budget and tripwire: CPU per start, memory',
    value: `${medianOf(addeds).toFixed(1)} µs`,
    baseline: `${medianOf(todays).toFixed(1)} µs today's guard`,
    ratio,
    goal: '≤ 1.10 (issue 32)',
    met: ratio <= 1.1,
  };
}

export async function run(): Promise<SummaryRow[]> {
  const row = await moneyAndTripwireRow();
  const provider = createTestProviderV1();
  await compare(
    'memory',
    createVerikit({ provider, secret, policies, guard: outOfReach }),
    createVerikit({ provider, secret, policies, guard: false }),
    sized(2000, 200),
  );

  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const namespace = `vk-bench-guard-${process.pid}-${randomUUID().slice(0, 8)}`;
  const stores: RedisFlowStore[] = [createRedisStore({ url, namespace }), createRedisStore({ url, namespace })];
  try {
    await Promise.all(stores.map((store) => store.connect()));
  } catch {
    console.log(`redis: skipped (no Redis at ${url})`);
    await Promise.all(stores.map((store) => store.disconnect()));
    return [row];
  }
  try {
    await compare(
      'redis',
      createVerikit({ provider, store: stores[0]!, secret, policies, guard: outOfReach }),
      createVerikit({ provider, store: stores[1]!, secret, policies, guard: false }),
      sized(500, 100),
    );
  } finally {
    const client = stores[0]!.client as unknown as {
      scanIterator(options: object): AsyncIterable<string[]>;
      unlink(keys: string[]): Promise<number>;
    };
    for await (const keys of client.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 }))
      if (keys.length > 0) await client.unlink(keys);
    await Promise.all(stores.map((store) => store.close()));
  }
  return [row];
}
