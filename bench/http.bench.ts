/**
 * `pnpm bench http`: the verikit flow handler on node:http beside the same work on Hono and on bare
 * node:http, measured in the same run.
 *
 * Three servers, each in its own child process on 127.0.0.1 with its own engine (test double,
 * in-memory store, 3000 BVN flows created beforehand), so that each has a core and its own heap:
 * - `node:http`: a bare request listener that does the same engine call and answers the same JSON;
 * - `hono`: a minimal Hono app on @hono/node-server, one hand route per operation calling
 *   `verikit.get` / `verikit.send`;
 * - `verikit`: `createFlowHandler({ verikit })` through `toNodeHandler`.
 * autocannon, in this process, drives `GET /flows/:id` and `POST /flows/:id/events` (a wrong code: the
 * whole commit path, no provider call), round-robin over the flows, with 1 and then 64 connections.
 * Printed: requests per second per cell and the ratio verikit / hono (the goal is at least 0.9).
 *
 * When Redis is reachable: two instances sharing Redis (store + change bus), an SSE client on B, POST
 * events on A; the delay from sending the POST to B's SSE event, median and p99 on loopback.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createVerikit, type FlowPolicies, type FlowView, type UserEvent, type Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { Hono } from 'hono';
import { spawnServer } from './child.js';
import { sized } from './mode.js';
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
  latency: { p50: number; p99: number };
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
const rounds = sized(3, 1);
const flowCount = sized(3000, 500);
const serverFlag = 'VERIKIT_HTTP_BENCH_SERVER';
const servers = ['node:http', 'hono', 'verikit'] as const;
type ServerKind = (typeof servers)[number];

function createEngine(): Verikit {
  return createVerikit({ provider: createTestProviderV1(), secret, clock: new ManualClock(), policies, guard: false });
}

async function startIdentityFlows(verikit: Verikit, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const view = await verikit.start({
      kind: 'identity',
      idType: 'bvn',
      number: `2${String(index).padStart(10, '0')}`,
    });
    ids.push(view.id);
  }
  return ids;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = '';
  request.setEncoding('utf8');
  for await (const chunk of request) text += chunk as string;
  return text;
}

/** The bare node:http listener: the same engine calls, the same JSON, nothing else. */
function bareListener(verikit: Verikit): Parameters<typeof createServer>[1] {
  const json = (response: import('node:http').ServerResponse, status: number, value: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
    response.end(JSON.stringify(value));
  };
  return (request, response) => {
    const [, , id, tail] = (request.url ?? '').split('/');
    const work = async () => {
      if (request.method === 'GET' && id !== undefined && tail === undefined)
        return json(response, 200, await verikit.get(id));
      if (request.method === 'POST' && id !== undefined && tail === 'events') {
        return json(response, 200, await verikit.send(id, JSON.parse(await bodyOf(request)) as UserEvent));
      }
      json(response, 404, { error: 'not found' });
    };
    work().catch(() => json(response, 500, { error: 'failed' }));
  };
}

/** The minimal Hono app: one hand route per operation. */
function honoListener(verikit: Verikit): ReturnType<typeof getRequestListener> {
  const app = new Hono();
  app.get('/flows/:id', async (c) => c.json(await verikit.get(c.req.param('id'))));
  app.post('/flows/:id/events', async (c) =>
    c.json(await verikit.send(c.req.param('id'), await c.req.json<UserEvent>())),
  );
  return getRequestListener(app.fetch);
}

/** A child process: one server of `kind` on 127.0.0.1; prints its port and flow ids. */
async function serve(kind: ServerKind): Promise<void> {
  const verikit = createEngine();
  const ids = await startIdentityFlows(verikit, flowCount);
  const listener =
    kind === 'node:http'
      ? bareListener(verikit)
      : kind === 'hono'
        ? honoListener(verikit)
        : toNodeHandler(createFlowHandler({ verikit }));
  const server = createServer(listener as Parameters<typeof createServer>[1]);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  // Each flow's secret, as the browser that started it holds it: the verikit handler checks it on every request.
  const secrets = Object.fromEntries(ids.map((id) => [id, verikit.flowSecret(id)]));
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, ids, secrets })}\n`);
}

async function startServerProcess(
  kind: ServerKind,
): Promise<{ url: string; ids: string[]; secrets: Record<string, string>; stop: () => void }> {
  const { line, stop } = await spawnServer(`${kind} server`, fileURLToPath(import.meta.url), { [serverFlag]: kind });
  const { port, ids, secrets } = JSON.parse(line) as { port: number; ids: string[]; secrets: Record<string, string> };
  return { url: `http://127.0.0.1:${port}`, ids, secrets, stop };
}

function roundRobin(
  ids: string[],
  secrets: Record<string, string>,
  build: (id: string, secret: string) => AutocannonRequest,
): AutocannonRequest[] {
  let next = 0;
  return [
    {
      setupRequest: (request) => {
        const id = ids[next % ids.length]!;
        next += 1;
        return { ...request, ...build(id, secrets[id]!) };
      },
    },
  ];
}

const event = JSON.stringify({ type: 'submit-code', code: '000000' });
const operations = {
  'GET /flows/:id': (id: string, secret: string): AutocannonRequest => ({
    method: 'GET',
    path: `/flows/${id}`,
    headers: { 'verikit-flow-secret': secret },
  }),
  'POST /flows/:id/events': (id: string, secret: string): AutocannonRequest => ({
    method: 'POST',
    path: `/flows/${id}/events`,
    headers: { 'content-type': 'application/json', 'verikit-flow-secret': secret },
    body: event,
  }),
};
type Operation = keyof typeof operations;
const concurrencies = [1, 64] as const;

function format(rate: number): string {
  return `${Math.round(rate).toLocaleString('en-US')}/s`.padStart(9);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function measureServers(): Promise<void> {
  // All three servers run at once (an idle one costs nothing) and every cell is measured in rounds,
  // the servers in turn, so that a burst of load from elsewhere on this shared machine hits all
  // three alike; each cell prints the median of its rounds.
  const started = await Promise.all(servers.map((kind) => startServerProcess(kind)));
  const byKind = new Map(servers.map((kind, index) => [kind, started[index]!]));
  const rates = new Map<string, number[]>();
  try {
    for (const [operation, build] of Object.entries(operations) as Array<
      [Operation, (id: string) => AutocannonRequest]
    >) {
      for (const server of started)
        await autocannon({
          url: server.url,
          connections: 16,
          duration: 1,
          requests: roundRobin(server.ids, server.secrets, build),
        });
      for (const connections of concurrencies) {
        for (let round = 0; round < rounds; round += 1) {
          for (const kind of servers) {
            const server = byKind.get(kind)!;
            const result = await autocannon({
              url: server.url,
              connections,
              duration: durationSeconds,
              requests: roundRobin(server.ids, server.secrets, build),
            });
            if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
              console.log(
                `  ! ${kind} ${operation} c=${connections}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}`,
              );
            }
            const key = `${kind} ${operation} ${connections}`;
            rates.set(key, [...(rates.get(key) ?? []), result.requests.average]);
          }
        }
      }
    }
  } finally {
    for (const server of started) server.stop();
  }
  console.log(
    `node ${process.version}, ${flowCount} flows; requests per second, median of ${rounds} rounds of ${durationSeconds} s, servers in turn`,
  );
  console.log(
    `${'operation'.padEnd(24)} ${'conns'.padStart(5)} ${servers.map((kind) => kind.padStart(9)).join(' ')}  verikit/hono`,
  );
  for (const operation of Object.keys(operations) as Operation[]) {
    for (const connections of concurrencies) {
      const cell = (kind: ServerKind) => median(rates.get(`${kind} ${operation} ${connections}`) ?? []);
      const ratio = cell('hono') > 0 ? (cell('verikit') / cell('hono')).toFixed(2) : 'n/a';
      console.log(
        `${operation.padEnd(24)} ${String(connections).padStart(5)} ${servers.map((kind) => format(cell(kind))).join(' ')}  ${ratio}`,
      );
    }
  }
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
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
      const phoneNumber = `+23481${String(process.pid % 1000).padStart(3, '0')}${String(flowIndex).padStart(5, '0')}`;
      const started = await fetch(`${a.url}/flows`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'phone', phoneNumber }),
      });
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
    const client = instances[0]!.store.client as unknown as { sendCommand(args: string[]): Promise<unknown> };
    let cursor = '0';
    do {
      const [nextCursor, keys] = (await client.sendCommand([
        'SCAN',
        cursor,
        'MATCH',
        `${namespace}::*`,
        'COUNT',
        '1000',
      ])) as [string, string[]];
      if (keys.length > 0) await client.sendCommand(['UNLINK', ...keys]);
      cursor = nextCursor;
    } while (cursor !== '0');
    for (const instance of instances) await instance.changeBus.close();
    for (const instance of instances) await instance.store.close();
  }
}

/** Runs the HTTP bench: see the file comment. */
export async function run(): Promise<void> {
  await measureServers();
  await measureCrossInstanceDelay();
}

const serverKind = process.env[serverFlag];
if (servers.includes(serverKind as ServerKind)) await serve(serverKind as ServerKind);
