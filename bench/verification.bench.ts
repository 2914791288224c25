/**
 * `pnpm bench verification`: one whole phone verification over HTTP on Redis (a `POST /flows` start, then the right
 * code in `POST /flows/:id/events`, flow secret and all), per second of the server's CPU, against a minimal
 * hand-written Hono + node-redis server doing the same work (issue 38).
 *
 * Three servers, each a child process of its own on the published build (decision 1221), all on one private
 * `redis-server` the bench starts on a free port:
 * - verikit: `toNodeHandler(createFlowHandler(...))` over `createVerikit` on `createRedisStore` and
 *   `createRedisChangeBus` (test double provider, its timers' poll off: it costs per second, not per verification),
 *   with the default send guard (its global budget raised out of reach, the same commands) — the client is a header
 *   of the bench's (`clientKey`), one per verification, so no per-client limit is reached;
 * - the same with `guard: false`;
 * - the baseline: a Hono app on `@hono/node-server` with node-redis. Start: the number checked, the per-number send
 *   limit (`INCR`, `EXPIRE`), a random flow id, the code's keyed hash with its TTL (`SET EX`), the flow secret (a
 *   keyed hash of the id) in the answer. Check: the flow secret, the code's form, the attempt counter (`INCR`,
 *   `EXPIRE`), the stored hash (`GET`), then the code and its counter removed (`DEL`): 7 commands.
 * Each server first serves 3,000 verifications not counted (JIT, connections; in chunks of 200 that go round the
 * three, so that each warms under the same load), then 9 rounds run the three in turn (the first moving by one each
 * round) at 1 verification in flight, then at 32: verifications per CPU-second of the server (`process.cpuUsage` in
 * the child, before and after the round's own verifications). The ratio is the median of the rounds' ratios, printed
 * with the lowest and the highest. Goal (issue 38): ≥ 0.95 of the hand-written server, guard on, at 1 and 32.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createVerikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createRedisChangeBus, createRedisStore } from '@verikit/redis';
import { createTestProviderV1 } from '@verikit/testing';
import { Hono } from 'hono';
import { createClient } from 'redis';
import { buildPackages } from './build.js';
import { BenchChild } from './child.js';
import { sized } from './mode.js';
import type { SummaryRow } from './summary.js';
import { PrivateRedis } from '../packages/redis/src/redis-test-env.fixtures.js';

type Arm = 'hand' | 'guard' | 'bare';
const arms: readonly Arm[] = ['hand', 'guard', 'bare'];
const armVariable = 'VERIKIT_VERIFICATION_BENCH_ARM';
const urlVariable = 'VERIKIT_VERIFICATION_BENCH_REDIS';
const secret = 'bench-verification-secret-0123456789abcd';
/** The test double's code (its default); the hand-written server "sends" the same. */
const rightCode = '123456';
/**
 * The warm-up is long enough for every arm to reach its steady CPU per verification (decision 1975): the servers'
 * CPU per verification still fell to less than half between their 600th and 3,000th verification, the hand-written
 * server's as well as the engine's, and had no trend after that (docs/performance.md).
 */
const sizes = {
  warm: sized(3000, 50),
  warmChunk: sized(200, 25),
  rounds: sized(9, 2),
  perRound: sized(400, 40),
};
const goal = 0.95;

/** The hand-written server (see the file comment). */
async function handListener(url: string): Promise<RequestListener> {
  const client = createClient({ url });
  await client.connect();
  const keyed = (text: string) => createHmac('sha256', secret).update(text).digest('base64url');
  const app = new Hono();
  app.post('/flows', async (c) => {
    const body = await c.req.json<{ kind?: unknown; phoneNumber?: unknown }>();
    const number = body.phoneNumber;
    if (body.kind !== 'phone' || typeof number !== 'string' || !/^\+234[789]\d{9}$/.test(number))
      return c.json({ error: 'invalid_input' }, 400);
    const sends = await client.incr(`hand:sends:${number}`);
    if (sends === 1) await client.expire(`hand:sends:${number}`, 3600);
    if (sends > 5) return c.json({ error: 'rate_limited' }, 429);
    const id = randomBytes(16).toString('base64url');
    await client.set(`hand:code:${id}`, keyed(`${id}:${rightCode}`), { EX: 600 });
    return c.json({ id, status: 'awaiting-code', flowSecret: keyed(`flow:${id}`) }, 201);
  });
  app.post('/flows/:id/events', async (c) => {
    const id = c.req.param('id');
    if (c.req.header('verikit-flow-secret') !== keyed(`flow:${id}`)) return c.json({ error: 'not_found' }, 404);
    const event = await c.req.json<{ type?: unknown; code?: unknown }>();
    if (event.type !== 'submit-code' || typeof event.code !== 'string' || !/^\d{6}$/.test(event.code))
      return c.json({ error: 'invalid_input' }, 400);
    const attempts = await client.incr(`hand:attempts:${id}`);
    if (attempts === 1) await client.expire(`hand:attempts:${id}`, 600);
    if (attempts > 5) return c.json({ error: 'too_many_attempts' }, 429);
    if ((await client.get(`hand:code:${id}`)) !== keyed(`${id}:${event.code}`))
      return c.json({ id, status: 'awaiting-code' });
    await client.del([`hand:code:${id}`, `hand:attempts:${id}`]);
    return c.json({ id, status: 'verified' });
  });
  return getRequestListener(app.fetch) as RequestListener;
}

/** The flow handler on Redis, with the default guard (`guard`) or none (`bare`). */
function verikitListener(url: string, arm: 'guard' | 'bare'): RequestListener {
  const store = createRedisStore({ url, namespace: `vk-bench-verification-${arm}` });
  const verikit = createVerikit({
    provider: createTestProviderV1(),
    store,
    changeBus: createRedisChangeBus({ store }),
    secret,
    timers: { pollMs: 0 },
    ...(arm === 'guard' ? { guard: { global: { points: 100_000_000 } } } : { guard: false as const }),
  });
  const clientKey = (request: Request) => request.headers.get('x-bench-client') ?? undefined;
  return toNodeHandler(createFlowHandler({ verikit, clientKey })) as RequestListener;
}

/** The child's work: one server of `arm`; sends its port, then answers each `cpu` message with its CPU time. */
async function serve(arm: Arm, url: string): Promise<void> {
  process.on('SIGTERM', () => process.exit(0));
  const listener = arm === 'hand' ? await handListener(url) : verikitListener(url, arm);
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  process.on('message', (message) => {
    if (message === 'cpu') process.send!(process.cpuUsage());
  });
  process.send!({ port: (server.address() as AddressInfo).port });
}

/** A number of its own for verification `index` (its 7-digit prefix shared by at most a few in a run). */
function phoneNumber(index: number): string {
  return `+234803${String(index % 10_000).padStart(4, '0')}${String(Math.floor(index / 10_000) % 1000).padStart(3, '0')}`;
}

let next = 0;

/** One verification against the server on `port`: the start, then the right code; anything else fails the bench. */
async function verify(port: number): Promise<void> {
  const index = next++;
  const headers = { 'content-type': 'application/json', 'x-bench-client': `client-${index}` };
  const started = await fetch(`http://127.0.0.1:${port}/flows`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ kind: 'phone', phoneNumber: phoneNumber(index) }),
  });
  if (started.status !== 201) throw new Error(`a start was answered ${started.status}: ${await started.text()}`);
  const flow = (await started.json()) as { id: string; flowSecret: string };
  const checked = await fetch(`http://127.0.0.1:${port}/flows/${flow.id}/events`, {
    method: 'POST',
    headers: { ...headers, 'verikit-flow-secret': flow.flowSecret },
    body: JSON.stringify({ type: 'submit-code', code: rightCode }),
  });
  const view = (await checked.json()) as { status?: string };
  if (checked.status !== 200 || view.status !== 'verified')
    throw new Error(`the right code was answered ${checked.status}, ${view.status ?? 'no status'}`);
}

async function many(port: number, count: number, inFlight: number): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left > 0) {
        left -= 1;
        await verify(port);
      }
    }),
  );
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/**
 * The verifications not counted, in chunks that go round the arms (so that every arm warms under the same load),
 * 8 in flight; prints each arm's CPU per verification in its first and last chunks, to show it has stopped falling.
 */
async function warmUp(cpu: (arm: Arm) => Promise<number>, portOf: (arm: Arm) => number): Promise<void> {
  const chunks: Record<Arm, number[]> = { hand: [], guard: [], bare: [] };
  for (let done = 0; done < sizes.warm; done += sizes.warmChunk) {
    for (const arm of arms) {
      const before = await cpu(arm);
      await many(portOf(arm), sizes.warmChunk, 8);
      chunks[arm].push((((await cpu(arm)) - before) / sizes.warmChunk) * 1e6);
    }
  }
  const shown = (arm: Arm) => {
    const [first, ...rest] = chunks[arm].map((value) => value.toFixed(0));
    return `${arm} ${first!} → ${rest.slice(-2).join(', ')}`;
  };
  console.log(
    `warm-up, ${sizes.warm} verifications an arm, server CPU µs per verification in the first and last two chunks of ${sizes.warmChunk}: ${arms.map(shown).join('; ')}`,
  );
}

export async function run(): Promise<SummaryRow[]> {
  const measure = (arm: Arm, inFlight: number) =>
    `whole verification on Redis per server CPU-second, guard ${arm === 'guard' ? 'on' : 'off'}, ${inFlight} in flight`;
  let redis: PrivateRedis;
  try {
    redis = await PrivateRedis.start();
  } catch (error) {
    console.log(`skipped: no private redis-server (${error instanceof Error ? error.message : String(error)})`);
    return [];
  }
  const removeBuild = buildPackages(['provider', 'core', 'testing', 'http', 'redis']);
  const children = new Map<Arm, { child: BenchChild; port: number }>();
  try {
    for (const arm of arms) {
      const child = new BenchChild(
        `${arm} server`,
        fileURLToPath(import.meta.url),
        { [armVariable]: arm, [urlVariable]: redis.url },
        [],
        true,
      );
      children.set(arm, { child, port: (await child.next<{ port: number }>()).port });
    }
    const cpu = async (arm: Arm) => {
      const { user, system } = await children.get(arm)!.child.ask<NodeJS.CpuUsage>('cpu');
      return (user + system) / 1e6;
    };
    await warmUp(cpu, (arm) => children.get(arm)!.port);
    const rows: SummaryRow[] = [];
    for (const inFlight of [1, 32]) {
      const count = sizes.perRound * (inFlight === 1 ? 1 : 2);
      const rates: Record<Arm, number[]> = { hand: [], guard: [], bare: [] };
      for (let round = 0; round < sizes.rounds; round += 1) {
        for (const arm of [...arms.slice(round % 3), ...arms.slice(0, round % 3)]) {
          const { port } = children.get(arm)!;
          await many(port, 20, inFlight);
          const before = await cpu(arm);
          await many(port, count, inFlight);
          rates[arm].push(count / ((await cpu(arm)) - before));
        }
      }
      console.log(`${inFlight} in flight, ${sizes.rounds} rounds of ${count} verifications an arm:`);
      for (const arm of arms) {
        const ratios = rates[arm].map((rate, round) => rate / rates.hand[round]!);
        const [low, high] = [Math.min(...ratios), Math.max(...ratios)];
        console.log(
          `  ${arm === 'hand' ? 'hand-written Hono + node-redis' : measure(arm, inFlight)}: ${median(rates[arm]).toFixed(0)} verifications per server CPU-second (rounds ${rates[arm].map((rate) => rate.toFixed(0)).join(', ')})${arm === 'hand' ? '' : `; ${median(ratios).toFixed(2)} of the hand-written server (rounds ${low.toFixed(2)}–${high.toFixed(2)})`}`,
        );
        if (arm === 'hand') continue;
        rows.push({
          measure: measure(arm, inFlight),
          value: `${median(rates[arm]).toFixed(0)}/s (rounds ${low.toFixed(2)}–${high.toFixed(2)})`,
          baseline: `${median(rates.hand).toFixed(0)}/s (hand-written Hono + node-redis)`,
          ratio: median(ratios),
          goal: arm === 'guard' ? `≥ ${goal}` : 'report',
          met: arm === 'guard' ? median(ratios) >= goal : undefined,
        });
      }
    }
    return rows;
  } finally {
    for (const { child } of children.values()) child.stop();
    removeBuild();
    await redis.dispose();
  }
}

const servedArm = process.env[armVariable];
if (servedArm !== undefined && servedArm !== '') await serve(servedArm as Arm, process.env[urlVariable]!);
