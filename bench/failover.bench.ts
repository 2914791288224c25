/**
 * `pnpm bench failover`: what `withFailover`'s breakers cost an ordinary provider call (its first member answers).
 * The same SMS sends (the test double, in memory, so the failover layer is all there is to measure) are made
 * directly on the member, through `withFailover` with breakers off, with per-process breakers, and with breakers
 * shared through the Redis at REDIS_URL (`createRedisCircuits`; that arm is skipped when Redis does not answer), in
 * rounds that rotate which arm goes first. Printed per arm: sends per second and CPU µs per send (medians), and the
 * CPU ratio to the direct call. A closed shared circuit makes no Redis call (decision 1300), so the shared arm should
 * cost what the per-process one does.
 */
import { randomUUID } from 'node:crypto';
import { silentLogger, type ProviderV1 } from '@verikit/provider';
import { withFailover } from '@verikit/provider-utils';
import { createRedisCircuits, createRedisStore } from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { sized } from './mode.js';

const rounds = sized(6, 2);
const sends = sized(20_000, 2000);
const input = { from: 'Shop', to: '+2348031230001', message: 'hi' };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `count` sends one after another: sends per second, and CPU µs per send (this process, user + system). */
async function measure(provider: ProviderV1, count: number): Promise<{ rate: number; cpuUs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let index = 0; index < count; index += 1)
    await provider.sms!.send(input, {
      signal: new AbortController().signal,
      idempotencyKey: `bench:${index}`,
      logger: silentLogger,
    });
  const elapsed = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { rate: count / (elapsed / 1000), cpuUs: (used.user + used.system) / count };
}

export async function run(): Promise<undefined> {
  // The sent messages are kept by the test double: a fresh member per arm and round keeps the heaps alike.
  const member = () => createTestProviderV1({ name: 'first' });
  const member2 = () => createTestProviderV1({ name: 'second' });
  const arms: Array<{ label: string; make: () => ProviderV1 }> = [
    { label: 'direct', make: member },
    { label: 'failover, no breaker', make: () => withFailover([member(), member2()], { breaker: false }) },
    { label: 'failover, breaker per process', make: () => withFailover([member(), member2()]) },
  ];
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const store = createRedisStore({ url, namespace: `vk-bench-failover-${process.pid}-${randomUUID().slice(0, 8)}` });
  const shared = createRedisCircuits({ store });
  let redis = true;
  try {
    await store.connect();
  } catch {
    console.log(`failover: the shared arm is skipped (no Redis at ${url})`);
    redis = false;
  }
  if (redis) {
    arms.push({
      label: 'failover, breaker shared (Redis)',
      make: () => withFailover([member(), member2()], { breaker: { shared } }),
    });
    await shared.subscribed('failover').catch(() => undefined);
  }
  const results = new Map(arms.map((arm) => [arm.label, { rate: [] as number[], cpuUs: [] as number[] }]));
  for (const arm of arms) await measure(arm.make(), Math.ceil(sends / 5));
  for (let round = 0; round < rounds; round += 1) {
    for (let offset = 0; offset < arms.length; offset += 1) {
      const arm = arms[(round + offset) % arms.length]!;
      const { rate, cpuUs } = await measure(arm.make(), sends);
      results.get(arm.label)!.rate.push(rate);
      results.get(arm.label)!.cpuUs.push(cpuUs);
    }
  }
  await shared.close();
  if (redis) await store.close();
  else await store.disconnect();
  const direct = median(results.get('direct')!.cpuUs);
  for (const [label, result] of results) {
    const cpuUs = median(result.cpuUs);
    console.log(
      `failover: ${label}: ${median(result.rate).toFixed(0)} sends/s, ${cpuUs.toFixed(2)} CPU µs per send, CPU ratio to direct ${(cpuUs / direct).toFixed(2)}`,
    );
  }
  return undefined;
}
