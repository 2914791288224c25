/**
 * `pnpm bench http`: the flow handler over real HTTP beside the in-process engine doing the same work.
 *
 * (a) Over HTTP: a child process runs the engine (test double, in-memory store) behind
 *     `createFlowHandler` + `toNodeHandler` on 127.0.0.1; autocannon, in this process, drives it with
 *     64 connections. Two operations, on flows created beforehand: `GET /flows/:id` and
 *     `POST /flows/:id/events` with a wrong code on a BVN flow (the whole commit path, no provider call),
 *     round-robin over the flows.
 * (b) In process: the same operations on an engine in this process, 64 in flight (`verikit.get`,
 *     `verikit.send`), for the same duration.
 * (c) Baselines for the HTTP cost alone, from the same child: a constant JSON body from a bare node:http
 *     listener, and the same body through `toNodeHandler` (the cost of the Web Request/Response conversion).
 *
 * The server and the load generator are in different processes so that each has a core; the in-process
 * engine runs on one core too. Printed: rates, the ratio HTTP / in-process, and latency.
 *
 * (d) When Redis is reachable: two instances sharing Redis (store + change bus), an SSE client on B, POST
 *     events on A; the delay from sending the POST to B's SSE event, median and p99 on loopback.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createVerikit, type FlowPolicies, type FlowView, type Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createTestProviderV1, ManualClock } from '@verikit/testing';

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
type Autocannon = (options: { url: string; connections: number; duration: number; requests?: AutocannonRequest[] }) => Promise<AutocannonResult>;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

const secret = 'bench-secret-bench-secret-bench-secret';
const policies: Partial<FlowPolicies> = { maxAttempts: 100, maxSendsPerHour: 1_000_000 };
const connections = 64;
const durationSeconds = 4;
const flowCount = 3000;
const serverFlag = 'VERIKIT_HTTP_BENCH_SERVER';

function createEngine(): Verikit {
  return createVerikit({ provider: createTestProviderV1(), secret, clock: new ManualClock(), policies });
}

async function startIdentityFlows(verikit: Verikit, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const view = await verikit.start({ kind: 'identity', idType: 'bvn', number: `2${String(index).padStart(10, '0')}` });
    ids.push(view.id);
  }
  return ids;
}

/** The child process: an engine behind the handler, plus a constant-JSON baseline route; prints port and flow ids. */
async function serve(): Promise<void> {
  const verikit = createEngine();
  const ids = await startIdentityFlows(verikit, flowCount);
  const handler = createFlowHandler({ verikit });
  const constant = JSON.stringify(await verikit.get(ids[0]!));
  const server = createServer(
    toNodeHandler(async (request) => {
      if (new URL(request.url).pathname === '/constant') {
        return new Response(constant, { headers: { 'content-type': 'application/json; charset=utf-8' } });
      }
      return handler(request);
    }),
  );
  const raw = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(constant);
  });
  server.listen(0, '127.0.0.1');
  raw.listen(0, '127.0.0.1');
  await Promise.all([once(server, 'listening'), once(raw, 'listening')]);
  const port = (server.address() as AddressInfo).port;
  const rawPort = (raw.address() as AddressInfo).port;
  process.stdout.write(`${JSON.stringify({ port, rawPort, ids })}\n`);
}

async function startServerProcess(): Promise<{ url: string; rawUrl: string; ids: string[]; stop: () => void }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, [serverFlag]: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  const { port, rawPort, ids } = JSON.parse(line) as { port: number; rawPort: number; ids: string[] };
  return { url: `http://127.0.0.1:${port}`, rawUrl: `http://127.0.0.1:${rawPort}`, ids, stop: () => child.kill() };
}

function roundRobin(ids: string[], build: (id: string) => AutocannonRequest): AutocannonRequest[] {
  let next = 0;
  return [
    {
      setupRequest: (request) => {
        const id = ids[next % ids.length]!;
        next += 1;
        return { ...request, ...build(id) };
      },
    },
  ];
}

/** `operation` with 64 in flight for the duration, round-robin over the ids; returns operations per second. */
async function inProcess(ids: string[], operation: (id: string) => Promise<unknown>): Promise<number> {
  const deadline = performance.now() + durationSeconds * 1000;
  let next = 0;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const id = ids[next % ids.length]!;
        next += 1;
        await operation(id);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

function format(rate: number): string {
  return `${Math.round(rate).toLocaleString('en-US')}/s`;
}

function check(label: string, result: AutocannonResult): void {
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    console.log(`  ! ${label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.requests.total}`);
  }
}

async function measureHttpAgainstEngine(): Promise<void> {
  const server = await startServerProcess();
  const engine = createEngine();
  const localIds = await startIdentityFlows(engine, flowCount);
  try {
    // Warm-up of both sides.
    await autocannon({ url: server.url, connections, duration: 1, requests: roundRobin(server.ids, (id) => ({ method: 'GET', path: `/flows/${id}` })) });
    await inProcess(localIds.slice(0, 100), (id) => engine.get(id));

    const raw = await autocannon({ url: server.rawUrl, connections, duration: durationSeconds });
    check('raw', raw);
    const constant = await autocannon({ url: `${server.url}/constant`, connections, duration: durationSeconds });
    check('constant', constant);
    const httpGet = await autocannon({ url: server.url, connections, duration: durationSeconds, requests: roundRobin(server.ids, (id) => ({ method: 'GET', path: `/flows/${id}` })) });
    check('GET', httpGet);
    const engineGet = await inProcess(localIds, (id) => engine.get(id));
    const event = JSON.stringify({ type: 'submit-code', code: '000000' });
    const httpPost = await autocannon({
      url: server.url,
      connections,
      duration: durationSeconds,
      requests: roundRobin(server.ids, (id) => ({ method: 'POST', path: `/flows/${id}/events`, headers: { 'content-type': 'application/json' }, body: event })),
    });
    check('POST events', httpPost);
    const enginePost = await inProcess(localIds, (id) => engine.send(id, { type: 'submit-code', code: '000000' }));

    console.log(`node ${process.version}, ${connections} connections / in flight, ${durationSeconds} s each, ${flowCount} flows`);
    console.log(`baseline: the same JSON from a bare node:http listener  ${format(raw.requests.average)} (p50 ${raw.latency.p50} ms, p99 ${raw.latency.p99} ms)`);
    console.log(`baseline: the same JSON through toNodeHandler         ${format(constant.requests.average)} (p50 ${constant.latency.p50} ms, p99 ${constant.latency.p99} ms)`);
    for (const [label, http, local] of [
      ['GET /flows/:id        vs verikit.get ', httpGet, engineGet],
      ['POST /flows/:id/events vs verikit.send', httpPost, enginePost],
    ] as const) {
      const rate = http.requests.average;
      console.log(
        `${label}  HTTP ${format(rate)} (p50 ${http.latency.p50} ms, p99 ${http.latency.p99} ms)  in-process ${format(local)}  ratio ${(rate / local).toFixed(2)}x`,
      );
    }
  } finally {
    server.stop();
  }
}

function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => finish(data.toString().startsWith('+PONG')));
  });
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
  if (!(await redisReachable(redisUrl))) {
    console.log(`cross-instance SSE delay: skipped, Redis at ${redisUrl} is not reachable`);
    return;
  }
  const { createRedisChangeBus, createRedisStore } = await import('@verikit/redis');
  const namespace = `vk-bench-http-${process.pid}`;
  const instances = await Promise.all(
    [0, 1].map(async () => {
      const store = createRedisStore({ url: redisUrl, namespace });
      const changeBus = createRedisChangeBus({ store });
      const provider = createTestProviderV1();
      const verikit = createVerikit({ provider, store, changeBus, secret, policies });
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
      const started = await fetch(`${a.url}/flows`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: 'phone', phoneNumber }) });
      const flow = (await started.json()) as FlowView;
      const controller = new AbortController();
      const views = viewsOf(await fetch(`${b.url}/flows/${flow.id}/stream`, { signal: controller.signal }));
      await views.next();
      await b.changeBus.subscribed(flow.id);
      for (let attempt = 0; attempt < 40; attempt += 1) {
        const sent = performance.now();
        const response = await fetch(`${a.url}/flows/${flow.id}/events`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
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
      await instance.changeBus.close();
    }
    const client = instances[0]!.store.client as unknown as { sendCommand(args: string[]): Promise<unknown> };
    let cursor = '0';
    do {
      const [nextCursor, keys] = (await client.sendCommand(['SCAN', cursor, 'MATCH', `${namespace}::*`, 'COUNT', '1000'])) as [string, string[]];
      if (keys.length > 0) await client.sendCommand(['UNLINK', ...keys]);
      cursor = nextCursor;
    } while (cursor !== '0');
    for (const instance of instances) await instance.store.close();
  }
}

/** Runs the HTTP bench: see the file comment. */
export async function run(): Promise<void> {
  await measureHttpAgainstEngine();
  await measureCrossInstanceDelay();
}

if (process.env[serverFlag] === '1') await serve();
