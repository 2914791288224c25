/**
 * `pnpm bench redis-processes`: aggregate committed events/s of the engine on one Redis with 1 and
 * with 2 processes, measured in the same run. Row 5 of issue 10's table (a report, no goal).
 *
 * Two child processes each run an engine on the Redis store and change bus (one namespace for both),
 * with 64 phone flows of their own and 64 wrong `submit-code` actions in flight (each action is two
 * committed events: the submit, then the provider's answer). Rounds alternate: process A alone, then
 * A and B together. Printed per round: the aggregate committed events/s, each process's CPU µs per
 * committed event (process.cpuUsage), and Redis's CPU µs per committed event (INFO cpu; the Redis
 * server is shared with whatever else runs on this machine, so that figure is an upper bound).
 * The machine has two cores: with two engine processes and Redis on them, the scaling says how much
 * of a core each committed event costs.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createVerikit } from '@verikit/core';
import { createRedisChangeBus, createRedisStore } from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { createClient } from 'redis';
import { BenchChild } from './child.js';
import { sized } from './mode.js';
import { wrongCodes } from './wrong-codes.js';
import { median, type SummaryRow } from './summary.js';

const childFlag = 'VERIKIT_REDIS_PROCESSES_BENCH';
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const inFlight = 64;
const roundMs = Number(process.env.BENCH_REDIS_MS ?? sized(2500, 500));
const rounds = sized(3, 1);
const secret = 'bench-redis-secret-0123456789abcdefghijk';

type Reply = { ready: true } | { events: number; seconds: number; cpuMicros: number };

/** The child: an engine on Redis; on each message, `roundMs` of load. */
async function serve(namespace: string, offset: number): Promise<void> {
  const store = createRedisStore({ url, namespace });
  const changeBus = createRedisChangeBus({ store });
  const policies = { maxAttempts: 100, maxSendsPerFlow: 100, resendCooldownMs: 0, maxSendsPerHour: 1_000_000 };
  // No send guard: its global limit (1,000 sends an hour) would end the run; its cost is `pnpm bench guard`.
  const verikit = createVerikit({ provider: createTestProviderV1(), store, changeBus, secret, policies, guard: false });
  const flows = await Promise.all(
    Array.from({ length: inFlight }, (_, lane) =>
      verikit.start({ kind: 'phone', phoneNumber: `+234803${String((offset + lane) % 10_000_000).padStart(7, '0')}` }),
    ),
  );
  const action = wrongCodes(
    verikit,
    flows.map((flow) => flow.id),
    (lane) => `+234803${String((offset + lane) % 10_000_000).padStart(7, '0')}`,
  );
  const load = async (ms: number): Promise<Reply> => {
    let actions = 0;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const until = started + ms;
    await Promise.all(
      flows.map(async (_, lane) => {
        while (performance.now() < until) {
          await action(lane);
          actions += 1;
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    const events = actions * 2;
    return { events, seconds: (performance.now() - started) / 1000, cpuMicros: (used.user + used.system) / events };
  };
  await load(500);
  process.on('message', async () => process.send!(await load(roundMs)));
  process.send!({ ready: true } satisfies Reply);
}

async function redisCpuSeconds(client: ReturnType<typeof createClient>): Promise<number> {
  const info = await client.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_sys') + field('used_cpu_user');
}

/** Row 5: see the file comment. */
export async function run(): Promise<SummaryRow[]> {
  const measure = 'aggregate events/s, 1 → 2 processes on one Redis';
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch {
    console.log(`skipped: Redis at ${url} is not reachable`);
    return [{ measure, value: 'Redis unreachable', baseline: '—', ratio: undefined, goal: 'report', met: undefined }];
  }
  const namespace = `vk-bench-procs-${process.pid}-${randomUUID().slice(0, 8)}`;
  const children = [0, 1].map(
    (index) =>
      new BenchChild(`engine process ${index + 1}`, fileURLToPath(import.meta.url), {
        [childFlag]: `${namespace}:${index * 1000}`,
      }),
  );
  try {
    await Promise.all(children.map((child) => child.next()));
    const round = async (count: number) => {
      const redisBefore = await redisCpuSeconds(client);
      const replies = await Promise.all(
        children
          .slice(0, count)
          .map((child) => child.ask<{ events: number; seconds: number; cpuMicros: number }>('go')),
      );
      const redisSeconds = (await redisCpuSeconds(client)) - redisBefore;
      const events = replies.reduce((sum, reply) => sum + reply.events, 0);
      const rate = replies.reduce((sum, reply) => sum + reply.events / reply.seconds, 0);
      return { rate, nodeMicros: replies.map((reply) => reply.cpuMicros), redisMicros: (redisSeconds * 1e6) / events };
    };
    const one: number[] = [];
    const two: number[] = [];
    console.log(
      `engine on Redis, submit-code, ${inFlight} in flight per process, ${rounds} rounds of ${roundMs} ms alternating 1 and 2 processes`,
    );
    for (let index = 0; index < rounds; index += 1) {
      for (const count of [1, 2]) {
        const result = await round(count);
        (count === 1 ? one : two).push(result.rate);
        console.log(
          `${count} process${count === 1 ? ' ' : 'es'}: ${Math.round(result.rate).toLocaleString('en-US')} committed events/s; node CPU ${result.nodeMicros.map((micros) => micros.toFixed(0)).join(' + ')} µs/event; Redis CPU ${result.redisMicros.toFixed(1)} µs/event`,
        );
      }
    }
    const scaling = median(two) / median(one);
    console.log(`scaling 2 processes / 1 process: ${scaling.toFixed(2)} (medians; 2.0 would be linear)`);
    return [
      {
        measure,
        value: `${Math.round(median(two)).toLocaleString('en-US')} events/s with 2`,
        baseline: `${Math.round(median(one)).toLocaleString('en-US')} events/s with 1`,
        ratio: scaling,
        goal: 'report',
        met: undefined,
      },
    ];
  } finally {
    for (const child of children) child.stop();
    for await (const keys of client.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 }))
      if (keys.length > 0) await client.unlink(keys);
    client.destroy();
  }
}

if (process.env[childFlag] !== undefined) {
  const value = process.env[childFlag];
  const split = value.lastIndexOf(':');
  await serve(value.slice(0, split), Number(value.slice(split + 1)));
}
