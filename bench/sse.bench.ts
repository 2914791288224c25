/**
 * `pnpm bench sse.bench`: server-sent-event streams of verikit's flow handler beside a bare node:http SSE
 * server, measured in the same run. Rows 6 and 7 of issue 10's table.
 *
 * Each server runs in its own child process (own heap and core), with --expose-gc, on the published build of the
 * packages (their `dist/`, built first; bench/build.ts): through tsx, every closure a stream keeps would carry an
 * own `name` property that the published code does not have, about 200 bytes each:
 * - `bare`: node:http; `GET /stream` answers the same headers and a first event, keeps the response in
 *   a set, and on a change serializes the new view once and writes it to every response (one shared
 *   heartbeat timer, as a hand-written SSE server would have);
 * - `web-stream`: the same bare server written the Web way, as the flow handler is served: a Web
 *   `ReadableStream` per response through @hono/node-server's `getRequestListener` (not a goal row; it
 *   shows how much of the gap is the Request/ReadableStream adapter rather than verikit);
 * - `verikit`: `createFlowHandler({ verikit })` through `toNodeHandler`, one phone flow in
 *   `awaiting-code`; `GET /flows/:id/stream`; a change is one commit in that process, as the bare server's is one
 *   write: in turn a wrong `submit-code` (the flow goes to `checking`, and the test double holds the provider's
 *   answer) and the held answer (back to `awaiting-code`). Until 2026-11-27 a change was the whole wrong
 *   `submit-code`: two commits, so two events to every stream against the bare server's one.
 * This process opens 1,000 raw TCP connections to one server, each a streaming GET, and waits for every
 * first event. Heap per open stream: the server's heap (after `gc()`) with the streams open, minus
 * before, over 1,000. Fan-out: the server stamps the time (`performance.timeOrigin + now()`, one clock
 * on this machine) and commits a change; this process notes when the last of the 1,000 streams received
 * it. Changes alternate between the servers, each round starting with the next one; printed: median and p99 of the
 * time to the last stream, and the server's CPU time per change (from its stamp until the last stream received it).
 * 400 changes per server in the full mode: the p99 of 100 was the slowest change alone. A flow has at most 100
 * attempts, so between changes, unmeasured, the flow handler's flow gets a fresh code (a resend, which gives the
 * attempts back) when it has 30 or fewer left, and the bench waits for every stream to see it.
 * The client's own reading of 1,000 sockets is in both figures alike.
 *
 * `BENCH_SSE_BEFORE=/path/to/an/older/packages/http/dist/index.js` adds that build of `@verikit/http` as one more
 * arm (`before`: the same flow handler and engine, the older HTTP package), for a before/after in the same run. The
 * path must be where that build's own imports resolve (inside a checkout with its `node_modules`).
 */
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createVerikit, type FlowView, type Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import { buildPackages } from './build.js';
import { BenchChild } from './child.js';
import { sized } from './mode.js';
import { collectGarbage, median, percentile, type SummaryRow } from './summary.js';

const childFlag = 'VERIKIT_SSE_BENCH_SERVER';
const streamCount = sized(1000, 200);
const changes = sized(400, 6);
const secret = 'bench-secret-bench-secret-bench-secret';
const headers = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

type Kind = 'bare' | 'web-stream' | 'verikit' | 'before';
const beforeBuild = process.env.BENCH_SSE_BEFORE;
type Command = { command: 'heap' } | { command: 'change' } | { command: 'cpu' } | { command: 'refresh' };
type Reply =
  | { port: number; path: string; secret?: string }
  | { heap: number }
  | { at: number; version: number }
  | { cpuMicros: number }
  | { refreshed: number | undefined };

const wallNow = (): number => performance.timeOrigin + performance.now();

/** Listens on a free loopback port; returns it. */
async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** The bare servers' change: the view one wrong code later. */
function nextView(view: FlowView): FlowView {
  return { ...view, version: view.version + 1, attemptsLeft: (view.attemptsLeft ?? 100) - 1, updatedAt: Date.now() };
}

/** The bare server: see the file comment. */
async function serveBare(view: FlowView): Promise<{ port: number; change: () => number }> {
  const open = new Set<ServerResponse>();
  let current = view;
  const event = (next: FlowView) => `id: ${next.version}\nevent: view\ndata: ${JSON.stringify(next)}\n\n`;
  // One listener for every response (no closure per stream, as a careful hand-written server would have it).
  function closed(this: ServerResponse): void {
    open.delete(this);
  }
  const server = createServer((_req, res) => {
    res.writeHead(200, headers);
    res.write(`retry: 3000\n\n${event(current)}`);
    open.add(res);
    res.on('close', closed);
  });
  setInterval(() => {
    for (const res of open) res.write(': heartbeat\n\n');
  }, 15_000).unref();
  return {
    port: await listen(server),
    change: () => {
      current = nextView(current);
      const text = event(current);
      for (const res of open) res.write(text);
      return current.version;
    },
  };
}

/**
 * The flow handler's change: one commit, in turn a wrong code's submit (the provider's answer held) and that answer;
 * resolves with the committed version once the engine published it (to every stream first: they subscribed first).
 */
function handlerChange(
  verikit: Verikit,
  provider: TestProviderV1,
  flowId: string,
): { change: () => Promise<number>; refresh: () => Promise<number | undefined> } {
  let answer: ((result: { valid: boolean }) => void) | undefined;
  let submitted: Promise<unknown> = Promise.resolve();
  // Between measured changes, with no answer held: a fresh code when the flow is running out of attempts (a resend
  // gives them back), so the bench may make more changes than a flow has attempts. The version to wait for, if any.
  const refresh = async () => {
    if (answer !== undefined || ((await verikit.get(flowId)).attemptsLeft ?? 0) > 30) return undefined;
    return (await verikit.send(flowId, { type: 'resend' })).version;
  };
  const change = async () => {
    const committed = new Promise<number>((resolve) => {
      const stop = verikit.subscribe(flowId, (view) => {
        stop();
        resolve(view.version);
      });
    });
    if (answer === undefined) {
      provider.script('phone.check', () => new Promise<{ valid: boolean }>((resolve) => (answer = resolve)));
      submitted = verikit.send(flowId, { type: 'submit-code', code: '000000' });
    } else {
      const release = answer;
      answer = undefined;
      release({ valid: false });
      await submitted;
    }
    return committed;
  };
  return { change, refresh };
}

/** The bare server written with Web streams behind @hono/node-server: see the file comment. */
async function serveWebStream(view: FlowView): Promise<{ port: number; change: () => number }> {
  const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();
  let current = view;
  const event = (next: FlowView) =>
    encoder.encode(`id: ${next.version}\nevent: view\ndata: ${JSON.stringify(next)}\n\n`);
  const listener = getRequestListener(() => {
    let self: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        self = controller;
        controller.enqueue(encoder.encode('retry: 3000\n\n'));
        controller.enqueue(event(current));
        open.add(controller);
      },
      cancel() {
        open.delete(self);
      },
    });
    return new Response(body, { headers });
  });
  return {
    port: await listen(createServer(listener)),
    change: () => {
      current = nextView(current);
      const bytes = event(current);
      for (const controller of open) controller.enqueue(bytes);
      return current.version;
    },
  };
}

async function serve(kind: Kind): Promise<void> {
  const provider = createTestProviderV1();
  const verikit = createVerikit({
    provider,
    secret,
    // A fresh code (a resend, between measured changes) gives the flow its attempts back: no cooldown for it.
    policies: { maxAttempts: 100, maxSendsPerFlow: 100, resendCooldownMs: 0, maxSendsPerHour: 1_000_000 },
  });
  const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234567' });
  let port: number;
  let change: () => Promise<number>;
  /** Between measured changes: a fresh code for the flow handler's flow if it needs one (`handlerChange`). */
  let refresh: () => Promise<number | undefined> = async () => undefined;
  const http: Pick<typeof import('@verikit/http'), 'createFlowHandler' | 'toNodeHandler'> =
    kind === 'before' ? await import(pathToFileURL(beforeBuild!).href) : { createFlowHandler, toNodeHandler };
  const handlerKind = kind === 'verikit' || kind === 'before';
  if (!handlerKind) {
    const bare = await (kind === 'bare' ? serveBare : serveWebStream)(flow);
    port = bare.port;
    change = async () => bare.change();
  } else {
    // Every stream of the bench follows one flow from one client: the per-flow and per-client caps are raised.
    const streamLimits = { perClient: 100_000, perFlow: 100_000 };
    port = await listen(createServer(http.toNodeHandler(http.createFlowHandler({ verikit, streamLimits }))));
    ({ change, refresh } = handlerChange(verikit, provider, flow.id));
  }
  let changeCpu = process.cpuUsage();
  process.on('message', async (message: Command) => {
    if (message.command === 'heap') {
      collectGarbage();
      process.send!({ heap: process.memoryUsage().heapUsed } satisfies Reply);
    } else if (message.command === 'refresh') {
      process.send!({ refreshed: await refresh() } satisfies Reply);
    } else if (message.command === 'cpu') {
      // The server's CPU time (its own threads, the collector's included) from the last change's stamp until now.
      const { user, system } = process.cpuUsage(changeCpu);
      process.send!({ cpuMicros: user + system } satisfies Reply);
    } else {
      changeCpu = process.cpuUsage();
      const at = wallNow();
      process.send!({ at, version: await change() } satisfies Reply);
    }
  });
  process.send!({
    port,
    path: handlerKind ? `/flows/${flow.id}/stream` : '/stream',
    secret: handlerKind ? verikit.flowSecret(flow.id) : undefined,
  } satisfies Reply);
}

/** One streaming GET on a raw socket; `waitFor(version)` resolves with the time its event arrived. */
class StreamClient {
  readonly socket: Socket;
  #tail = '';
  #seen = new Map<number, number>();
  #waiting: { version: number; resolve: (at: number) => void } | undefined;

  constructor(port: number, path: string, secret: string | undefined) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    const owner = secret === undefined ? '' : `verikit-flow-secret: ${secret}\r\n`;
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n${owner}\r\n`);
    this.socket.on('data', (chunk: string) => this.#read(chunk));
  }

  #read(chunk: string): void {
    const at = wallNow();
    const text = this.#tail + chunk;
    for (const match of text.matchAll(/\nid: (\d+)\n/g)) {
      const version = Number(match[1]);
      if (!this.#seen.has(version)) this.#seen.set(version, at);
      if (this.#waiting?.version === version) {
        this.#waiting.resolve(at);
        this.#waiting = undefined;
      }
    }
    this.#tail = text.slice(-24);
  }

  waitFor(version: number): Promise<number> {
    const seen = this.#seen.get(version);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => {
      this.#waiting = { version, resolve };
    });
  }

  /** The first event (any version) has arrived. */
  async opened(): Promise<void> {
    while (this.#seen.size === 0) await once(this.socket, 'data');
  }
}

class ServerProcess {
  readonly child: BenchChild;
  port = 0;
  path = '';
  secret: string | undefined;
  clients: StreamClient[] = [];

  constructor(readonly kind: Kind) {
    this.child = new BenchChild(`${kind} SSE server`, fileURLToPath(import.meta.url), { [childFlag]: kind }, [], true);
  }

  async started(): Promise<void> {
    const reply = await this.child.next<{ port: number; path: string; secret?: string }>();
    this.port = reply.port;
    this.path = reply.path;
    this.secret = reply.secret;
  }

  ask<T extends Reply>(command: Command): Promise<T> {
    return this.child.ask<T>(command);
  }

  async open(count: number): Promise<void> {
    const opened = Array.from({ length: count }, () => new StreamClient(this.port, this.path, this.secret));
    await Promise.all(opened.map((client) => client.opened()));
    this.clients.push(...opened);
  }

  close(clients: StreamClient[]): void {
    for (const client of clients) client.socket.destroy();
  }

  /**
   * One change: the milliseconds until the last stream received it, and the server's CPU time from the change until
   * then (a figure the neighbours of a shared machine disturb far less than the wall time).
   */
  /** Outside the measured changes: lets the server send a fresh code if it needs one, and waits for every stream to see it. */
  async refresh(): Promise<void> {
    const { refreshed } = await this.ask<{ refreshed: number | undefined }>({ command: 'refresh' });
    if (refreshed !== undefined) await Promise.all(this.clients.map((client) => client.waitFor(refreshed)));
  }

  async fanOut(): Promise<{ ms: number; cpuMicros: number }> {
    const { at, version } = await this.ask<{ at: number; version: number }>({ command: 'change' });
    const arrivals = await Promise.all(this.clients.map((client) => client.waitFor(version)));
    const ms = Math.max(...arrivals) - at;
    return { ms, cpuMicros: (await this.ask<{ cpuMicros: number }>({ command: 'cpu' })).cpuMicros };
  }
}

/** Rows 6 and 7: see the file comment. */
export async function run(): Promise<SummaryRow[]> {
  const removeBuild = buildPackages(['provider', 'core', 'testing', 'http']);
  const kinds: Kind[] = ['bare', 'web-stream', 'verikit', ...(beforeBuild === undefined ? [] : (['before'] as const))];
  const servers = kinds.map((kind) => new ServerProcess(kind));
  try {
    for (const server of servers) await server.started();
    const heapPerStream: Record<Kind, number> = { bare: 0, 'web-stream': 0, verikit: 0, before: 0 };
    for (const server of servers) {
      // Warm the code paths, then drop those streams before the first reading.
      await server.open(20);
      server.close(server.clients.splice(0));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = (await server.ask<{ heap: number }>({ command: 'heap' })).heap;
      await server.open(streamCount);
      const after = (await server.ask<{ heap: number }>({ command: 'heap' })).heap;
      heapPerStream[server.kind] = (after - before) / streamCount;
    }
    const delays: Record<Kind, number[]> = { bare: [], 'web-stream': [], verikit: [], before: [] };
    const cpu: Record<Kind, number[]> = { bare: [], 'web-stream': [], verikit: [], before: [] };
    for (let round = 0; round < 5; round += 1) for (const server of servers) await server.fanOut(); // warm-up
    // Each round starts with the next server: a server's change must not always follow the same neighbour (whose
    // collector, and the client's reading of its 1,000 sockets, may still be running).
    for (let round = 0; round < changes; round += 1)
      for (const server of [...servers.slice(round % servers.length), ...servers.slice(0, round % servers.length)]) {
        const { ms, cpuMicros } = await server.fanOut();
        delays[server.kind].push(ms);
        cpu[server.kind].push(cpuMicros);
        // Unmeasured: the flow handler's flow gets a fresh code if it needs one.
        await server.refresh();
      }
    const heapRatio = heapPerStream.verikit / heapPerStream.bare;
    const medianRatio = median(delays.verikit) / median(delays.bare);
    const p99Ratio = percentile(delays.verikit, 0.99) / percentile(delays.bare, 0.99);
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    const count = streamCount.toLocaleString('en-US');
    console.log(`${streamCount.toLocaleString('en-US')} open streams on one flow; server heap after gc(), per stream`);
    console.log(`bare node:http SSE    ${Math.round(heapPerStream.bare)} bytes/stream`);
    console.log(
      `web-stream (hono)     ${Math.round(heapPerStream['web-stream'])} bytes/stream   ratio ${(heapPerStream['web-stream'] / heapPerStream.bare).toFixed(2)} (the adapter's floor)`,
    );
    console.log(
      `verikit flow handler  ${Math.round(heapPerStream.verikit)} bytes/stream   ratio ${heapRatio.toFixed(2)} (goal <= 1.3)`,
    );
    if (beforeBuild !== undefined) {
      const ratio = heapPerStream.before / heapPerStream.bare;
      console.log(`before (older http)   ${Math.round(heapPerStream.before)} bytes/stream   ratio ${ratio.toFixed(2)}`);
    }
    console.log(
      `one change reaching all ${streamCount.toLocaleString('en-US')} streams, ${changes} changes alternating between the servers`,
    );
    for (const kind of kinds) {
      const cpuMs = ms(median(cpu[kind]) / 1000);
      console.log(
        `${kind.padEnd(10)} median ${ms(median(delays[kind]))}, p99 ${ms(percentile(delays[kind], 0.99))}; server CPU per change, median ${cpuMs}`,
      );
    }
    const cpuRatio = median(cpu.verikit) / median(cpu.bare);
    console.log(`ratio verikit / bare: median ${medianRatio.toFixed(2)}, p99 ${p99Ratio.toFixed(2)} (goal <= 1.2)`);
    console.log(
      `server CPU per change, verikit / bare: ${cpuRatio.toFixed(2)} (the change's own engine work included)`,
    );
    if (beforeBuild !== undefined) {
      const [medianBefore, p99Before] = [
        median(delays.before) / median(delays.bare),
        percentile(delays.before, 0.99) / percentile(delays.bare, 0.99),
      ];
      console.log(`ratio before / bare: median ${medianBefore.toFixed(2)}, p99 ${p99Before.toFixed(2)}`);
      console.log(`server CPU per change, before / bare: ${(median(cpu.before) / median(cpu.bare)).toFixed(2)}`);
    }
    console.log(
      `ratio web-stream / bare: median ${(median(delays['web-stream']) / median(delays.bare)).toFixed(2)} (the adapter's floor)`,
    );
    return [
      {
        measure: `SSE: heap per open stream, ${count} streams`,
        value: `${Math.round(heapPerStream.verikit)} bytes`,
        baseline: `${Math.round(heapPerStream.bare)} bytes (bare node:http SSE)`,
        ratio: heapRatio,
        goal: '≤ 1.3x',
        met: heapRatio <= 1.3,
      },
      {
        measure: `SSE: one change to ${count} streams, median`,
        value: ms(median(delays.verikit)),
        baseline: `${ms(median(delays.bare))} (bare)`,
        ratio: medianRatio,
        goal: '≤ 1.2x',
        met: medianRatio <= 1.2,
      },
      {
        measure: `SSE: server CPU per change to ${count} streams`,
        value: ms(median(cpu.verikit) / 1000),
        baseline: `${ms(median(cpu.bare) / 1000)} (bare)`,
        ratio: cpuRatio,
        goal: 'report',
        met: undefined,
      },
      {
        measure: `SSE: one change to ${count} streams, p99`,
        value: ms(percentile(delays.verikit, 0.99)),
        baseline: `${ms(percentile(delays.bare, 0.99))} (bare)`,
        ratio: p99Ratio,
        goal: '≤ 1.2x',
        met: p99Ratio <= 1.2,
      },
    ];
  } finally {
    for (const server of servers) {
      server.close(server.clients);
      server.child.stop();
    }
    removeBuild();
  }
}

if (process.env[childFlag] !== undefined) await serve(process.env[childFlag] as Kind);
