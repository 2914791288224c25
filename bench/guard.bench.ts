/**
 * `pnpm bench guard`: what the send guard costs a start. Phone flows are started, one after another,
 * to distinct numbers by distinct clients (nothing is refused: the limits are set out of reach), by an
 * engine with the guard and the same engine without it, in alternating rounds; medians and their
 * ratio are printed. In memory (rate-limiter-flexible's RateLimiterMemory), then on the Redis at
 * REDIS_URL (RateLimiterRedis on the store's client; skipped when Redis does not answer).
 */
import { randomUUID } from 'node:crypto';
import { createVerikit, type SendGuardOptions, type Verikit } from '@verikit/core';
import { createRedisStore, type RedisFlowStore } from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { sized } from './mode.js';

const secret = 'bench-secret-bench-secret-bench-secret';
const rounds = sized(5, 1);
const policies = { maxSendsPerHour: 1_000_000 };
const outOfReach: SendGuardOptions = {
  perClient: { points: 1e9 },
  perPrefix: { points: 1e9 },
  global: { points: 1e9 },
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

export async function run(): Promise<void> {
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
    return;
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
}
