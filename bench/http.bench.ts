/**
 * `pnpm bench http`: the verikit flow handler on node:http beside the same work on bare node:http and on Hono,
 * measured in the same run.
 *
 * The servers (bench/http-servers.ts, which says what each does) run at once, each in its own child process with its
 * own engine and flows, on the published build of the packages (built here first, as the SSE bench does), so that
 * each has its own heap: `node:http`, a bare request listener doing the same checks and
 * engine call; `hono`, a minimal Hono app; `verikit`, `createFlowHandler({ verikit })` through `toNodeHandler`; and,
 * when `BENCH_HTTP_BEFORE=/path/to/an/earlier/packages/http/dist/index.js` is set, `verikit before`, that build of
 * the handler (for a before/after in one run). autocannon, in this process, drives `GET /flows/:id` and
 * `POST /flows/:id/events` (a wrong code: the whole commit path, no provider call), round robin over the flows with
 * their flow secrets, at 1 and 64 connections. Rounds alternate: each round runs every server once, in an order that
 * rotates from round to round. Every answer must be a 2xx (a flow that locked would make its arm answer errors and
 * look faster): the bench fails otherwise.
 *
 * Printed per cell: requests per second (median of the rounds), server CPU per request (`process.cpuUsage` of the
 * child, read around each round), and the ratios verikit / node:http (the median of the rounds' ratios; the goal for
 * POST is at least 0.8) and verikit / hono. `BENCH_HTTP_CPU_PROF=<dir>` runs the verikit child under `--cpu-prof`;
 * `BENCH_HTTP_ROUNDS` sets the number of rounds.
 *
 * When Redis is reachable: two instances sharing Redis (store + change bus), an SSE client on B, POST
 * events on A; the delay from sending the POST to B's SSE event, median and p99 on loopback.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createVerikit, type FlowPolicies, type FlowView } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { buildPackages } from './build.js';
import { BenchChild } from './child.js';
import { beforeBuildVariable, serve, serverKindVariable, type ServerKind, type ServerReady } from './http-servers.js';
import { sized } from './mode.js';
import { median, percentile, type SummaryRow } from './summary.js';
import { redisUnavailableReason } from '../packages/redis/src/redis-test-env.fixtures.js';

interface AutocannonRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests?: AutocannonRequest[];
}) => Promise<AutocannonResult>;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

const secret = 'bench-secret-bench-secret-bench-secret';
const policies: Partial<FlowPolicies> = { maxAttempts: 100, maxSendsPerHour: 1_000_000 };
const durationSeconds = sized(2, 1);
// BENCH_HTTP_ROUNDS: more rounds where the machine is noisy.
const rounds = Number(process.env.BENCH_HTTP_ROUNDS ?? sized(5, 2));
const flowCount = sized(5000, 1000);
const postGoal = 0.8;

interface Server extends ServerReady {
  readonly kind: ServerKind;
  readonly child: BenchChild;
}

function kinds(): ServerKind[] {
  const before = process.env[beforeBuildVariable];
  return ['node:http', 'hono', 'verikit', ...(before ? (['verikit before'] as const) : [])];
}

async function startServer(kind: ServerKind): Promise<Server> {
  const profile = process.env.BENCH_HTTP_CPU_PROF;
  const execArgv = kind === 'verikit' && profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  // The published build, as users run it (decision 1221: tsx gives every function an own `name`, a cost per closure).
  const child = new BenchChild(
    `${kind} server`,
    fileURLToPath(import.meta.url),
    { [serverKindVariable]: kind },
    execArgv,
    true,
  );
  try {
    return { kind, child, ...(await child.next<ServerReady>()) };
  } catch (error) {
    child.stop();
    throw error;
  }
}

async function cpuMicroseconds(server: Server): Promise<number> {
  const { user, system } = await server.child.ask<NodeJS.CpuUsage>('cpu');
  return user + system;
}

function roundRobin(server: Server, build: (id: string, secret: string) => AutocannonRequest): AutocannonRequest[] {
  let next = 0;
  return [
    {
      setupRequest: (request) => {
        const id = server.ids[next % server.ids.length]!;
        next += 1;
        return { ...request, ...build(id, server.secrets[id]!) };
      },
    },
  ];
}

const event = JSON.stringify({ type: 'submit-code', code: '000000' });
const operations = {
  'GET /flows/:id': (id: string, flowSecret: string): AutocannonRequest => ({
    method: 'GET',
    path: `/flows/${id}`,
    headers: { 'verikit-flow-secret': flowSecret },
  }),
  'POST /flows/:id/events': (id: string, flowSecret: string): AutocannonRequest => ({
    method: 'POST',
    path: `/flows/${id}/events`,
    headers: { 'content-type': 'application/json', 'verikit-flow-secret': flowSecret },
    body: event,
  }),
};
type Operation = keyof typeof operations;
const concurrencies = [1, 64] as const;

/** One round of one server: its rate and its CPU per request; throws unless every answer was a 2xx. */
async function measure(server: Server, operation: Operation, connections: number) {
  const cpuBefore = await cpuMicroseconds(server);
  const result = await autocannon({
    url: `http://127.0.0.1:${server.port}`,
    connections,
    duration: durationSeconds,
    requests: roundRobin(server, operations[operation]),
  });
  const cpu = (await cpuMicroseconds(server)) - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${server.kind} ${operation} c=${connections}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}`,
    );
  }
  return { rate: result.requests.average, cpuPerRequest: cpu / Math.max(1, result.requests.total) };
}

interface Cell {
  rates: number[];
  cpu: number[];
}

const format = (rate: number) => `${Math.round(rate).toLocaleString('en-US')}/s`;

async function measureServers(): Promise<SummaryRow[]> {
  const arms = kinds();
  const servers = await Promise.all(arms.map((kind) => startServer(kind)));
  const cells = new Map<string, Cell>();
  const cellOf = (kind: ServerKind, operation: Operation, connections: number): Cell => {
    const key = `${kind} ${operation} ${connections}`;
    if (!cells.has(key)) cells.set(key, { rates: [], cpu: [] });
    return cells.get(key)!;
  };
  try {
    for (const operation of Object.keys(operations) as Operation[]) {
      for (const server of servers) await measure(server, operation, 16);
      for (const connections of concurrencies) {
        for (let round = 0; round < rounds; round += 1) {
          // The order rotates, so that no arm always runs right after the same one.
          const order = servers.map((_, index) => servers[(index + round) % servers.length]!);
          for (const server of order) {
            const { rate, cpuPerRequest } = await measure(server, operation, connections);
            cellOf(server.kind, operation, connections).rates.push(rate);
            cellOf(server.kind, operation, connections).cpu.push(cpuPerRequest);
          }
        }
      }
    }
  } finally {
    for (const server of servers) server.child.stop();
  }
  /** The median over rounds of `kind`'s rate over `baseline`'s in the same round. */
  const ratio = (kind: ServerKind, baseline: ServerKind, operation: Operation, connections: number) => {
    const mine = cellOf(kind, operation, connections).rates;
    const theirs = cellOf(baseline, operation, connections).rates;
    return median(mine.map((rate, round) => rate / theirs[round]!));
  };
  console.log(
    `node ${process.version}, ${flowCount} flows; ${rounds} alternating rounds of ${durationSeconds} s per cell; median rate, median server CPU per request, median of the rounds' ratios`,
  );
  const rows: SummaryRow[] = [];
  for (const operation of Object.keys(operations) as Operation[]) {
    for (const connections of concurrencies) {
      const figures = arms.map((kind) => {
        const cell = cellOf(kind, operation, connections);
        return `${kind} ${format(median(cell.rates))} (${median(cell.cpu).toFixed(0)} CPU-µs)`;
      });
      const versusBare = ratio('verikit', 'node:http', operation, connections);
      const cpuRatio =
        median(cellOf('node:http', operation, connections).cpu) / median(cellOf('verikit', operation, connections).cpu);
      const goal = operation.startsWith('POST') ? ` (goal ≥ ${postGoal})` : '';
      const before = arms.includes('verikit before')
        ? `, before ${ratio('verikit before', 'node:http', operation, connections).toFixed(2)}`
        : '';
      const cpuBefore = arms.includes('verikit before')
        ? `, before ${(median(cellOf('node:http', operation, connections).cpu) / median(cellOf('verikit before', operation, connections).cpu)).toFixed(2)}`
        : '';
      console.log(`${operation} c=${connections}: ${figures.join(', ')}`);
      console.log(
        `  verikit / node:http ${versusBare.toFixed(2)}${goal}${before}; CPU per request, bare / verikit: ${cpuRatio.toFixed(2)}${cpuBefore}; verikit / hono ${ratio('verikit', 'hono', operation, connections).toFixed(2)}`,
      );
      if (operation.startsWith('POST')) {
        rows.push({
          measure: `POST an event, verikit / node:http, ${connections === 1 ? '1 in flight' : `${connections} in flight`}`,
          value: format(median(cellOf('verikit', operation, connections).rates)),
          baseline: `${format(median(cellOf('node:http', operation, connections).rates))} (bare node:http; CPU per request, bare / verikit: ${cpuRatio.toFixed(2)})`,
          ratio: versusBare,
          goal: `≥ ${postGoal}`,
          met: versusBare >= postGoal,
        });
      }
    }
  }
  return rows;
}

/** Reads `event: view` frames of an SSE response. */
async function* viewsOf(response: Response): AsyncGenerator<FlowView> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      const data = block.find((line) => line.startsWith('data: '));
      if (block.includes('event: view') && data !== undefined) yield JSON.parse(data.slice(6)) as FlowView;
    }
  }
}

async function measureCrossInstanceDelay(): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const unavailable = await redisUnavailableReason(redisUrl);
  if (unavailable !== undefined) {
    console.log(`cross-instance SSE delay: skipped, ${unavailable}`);
    return;
  }
  const { createRedisChangeBus, createRedisStore } = await import('@verikit/redis');
  const namespace = `vk-bench-http-${process.pid}`;
  const instances = await Promise.all(
    [0, 1].map(async () => {
      const store = createRedisStore({ url: redisUrl, namespace });
      const changeBus = createRedisChangeBus({ store });
      const provider = createTestProviderV1();
      const verikit = createVerikit({ provider, store, changeBus, secret, policies, guard: false });
      const server = createServer(toNodeHandler(createFlowHandler({ verikit })));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return { store, changeBus, verikit, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    }),
  );
  const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
  const samples: number[] = [];
  const roundTrips: number[] = [];
  try {
    for (let flowIndex = 0; flowIndex < 8; flowIndex += 1) {
      // A number of a valid range whatever this process's id (a number built from the pid was invalid for pids
      // ending in 920–999, and the bench failed in CI at random).
      const started = await fetch(`${a.url}/flows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'phone', phoneNumber: freshPhoneNumber() }),
      });
      if (started.status !== 201)
        throw new Error(`starting a flow answered ${started.status}: ${await started.text()}`);
      const flow = (await started.json()) as FlowView & { flowSecret: string };
      const owner = { 'verikit-flow-secret': flow.flowSecret };
      const controller = new AbortController();
      const views = viewsOf(
        await fetch(`${b.url}/flows/${flow.id}/stream`, { signal: controller.signal, headers: owner }),
      );
      await views.next();
      await b.changeBus.subscribed(flow.id);
      for (let attempt = 0; attempt < 40; attempt += 1) {
        const sent = performance.now();
        const response = await fetch(`${a.url}/flows/${flow.id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...owner },
          body: JSON.stringify({ type: 'submit-code', code: '000000' }),
        });
        const answered = performance.now();
        const view = (await response.json()) as FlowView;
        for (let next = await views.next(); !next.done; next = await views.next()) {
          if (next.value.version >= view.version) break;
        }
        samples.push(performance.now() - sent);
        roundTrips.push(answered - sent);
      }
      controller.abort();
    }
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    console.log(
      `cross-instance SSE (Redis pub/sub, loopback), ${samples.length} events: POST on A sent -> view on B's stream: median ${ms(percentile(samples, 0.5))}, p99 ${ms(percentile(samples, 0.99))}` +
        `  (POST round trip alone: median ${ms(percentile(roundTrips, 0.5))}, p99 ${ms(percentile(roundTrips, 0.99))})`,
    );
  } finally {
    for (const instance of instances) {
      instance.server.closeAllConnections();
      instance.server.close();
    }
    // The bench's keys go before the connections close (closing a change bus may close its store's client).
    // A store that never connected (the bench failed before its first command) wrote no key, and its client would
    // only answer "The client is closed", hiding the error that ended the bench.
    const client = instances[0]!.store.client as unknown as {
      isOpen: boolean;
      sendCommand(args: string[]): Promise<unknown>;
    };
    let cursor = client.isOpen ? '0' : undefined;
    while (cursor !== undefined) {
      const [nextCursor, keys] = (await client.sendCommand([
        'SCAN',
        cursor,
        'MATCH',
        `${namespace}::*`,
        'COUNT',
        '1000',
      ])) as [string, string[]];
      if (keys.length > 0) await client.sendCommand(['UNLINK', ...keys]);
      cursor = nextCursor === '0' ? undefined : nextCursor;
    }
    for (const instance of instances) await instance.changeBus.close();
    for (const instance of instances) await instance.store.close();
  }
}

/** Runs the HTTP bench: see the file comment. */
export async function run(): Promise<SummaryRow[]> {
  const removeBuild = buildPackages(['provider', 'core', 'testing', 'http']);
  try {
    const rows = await measureServers();
    await measureCrossInstanceDelay();
    return rows;
  } finally {
    removeBuild();
  }
}

const serverKind = process.env[serverKindVariable];
if (serverKind !== undefined && serverKind !== '') await serve(serverKind as ServerKind, flowCount);
