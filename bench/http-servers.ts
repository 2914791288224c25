/**
 * The servers of `pnpm bench http`, each run in a child process of its own (bench/child.ts): one engine each (test
 * double, in-memory store, the same flows started beforehand), and one of these request listeners on 127.0.0.1.
 *
 * Every arm does the security-relevant work the flow handler does on the routes measured, so that the ratio is the
 * handler's own cost and not a check the baseline skips: the flow secret checked by the engine's keyed hash (a wrong
 * one is the flow's 404), the JSON content type (415), the body capped at 16 KiB on `Content-Length` and on the bytes
 * read (413), `JSON.parse` (400), and the engine's `send`, which validates the event with its schema. They answer with
 * the same JSON and the same three headers. What the arms leave out is said where it is: the bare arm maps errors to
 * a status without the handler's error table, and has no CORS, no route table, no `OPTIONS` or 405 answers.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createVerikit, type FlowPolicies, type UserEvent, type Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { Hono } from 'hono';

/** The arms: the bare listener, a minimal Hono app, the flow handler, and (optionally) an earlier build of it. */
export type ServerKind = 'node:http' | 'hono' | 'verikit' | 'verikit before';

/** What a server child sends first, over its IPC channel. */
export interface ServerReady {
  readonly port: number;
  readonly ids: string[];
  readonly secrets: Record<string, string>;
}

/** The environment variable naming the arm a child serves, and the one naming the earlier build's entry. */
export const serverKindVariable = 'VERIKIT_HTTP_BENCH_SERVER';
export const beforeBuildVariable = 'BENCH_HTTP_BEFORE';

const secret = 'bench-secret-bench-secret-bench-secret';
// 100 attempts is the most a policy allows: with `flowCount` flows, round robin, every answer stays a 2xx as long as
// an arm is sent fewer than 100 × flowCount events (the bench checks that every answer was a 2xx).
const policies: Partial<FlowPolicies> = { maxAttempts: 100, maxSendsPerHour: 1_000_000 };
const maxBodyBytes = 16 * 1024;
const jsonHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

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

/** An error answer of the bare arm: a status and nothing else of the handler's error table. */
class BareError extends Error {
  constructor(readonly status: number) {
    super(String(status));
  }
}

/** The body, capped at `maxBodyBytes` on `Content-Length` and on the bytes read. */
function bodyOf(request: IncomingMessage): Promise<string> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) return Promise.reject(new BareError(413));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    request.on('data', (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBodyBytes) reject(new BareError(413));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks, total).toString('utf8')));
    request.on('error', reject);
  });
}

/** The bare node:http listener: the same checks and engine calls, the same JSON, nothing else. */
function bareListener(verikit: Verikit): RequestListener {
  const json = (response: ServerResponse, status: number, value: unknown) => {
    const body = JSON.stringify(value);
    response.writeHead(status, { ...jsonHeaders, 'content-length': Buffer.byteLength(body) });
    response.end(body);
  };
  const owned = (request: IncomingMessage, id: string): string => {
    if (!verikit.isFlowSecret(id, request.headers['verikit-flow-secret'])) throw new BareError(404);
    return id;
  };
  return (request, response) => {
    const [, flows, id, tail] = (request.url ?? '').split('/');
    const work = async () => {
      if (flows !== 'flows' || id === undefined) throw new BareError(404);
      if (request.method === 'GET' && tail === undefined)
        return json(response, 200, await verikit.get(owned(request, id)));
      if (request.method === 'POST' && tail === 'events') {
        const flowId = owned(request, id);
        if (!(request.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
          throw new BareError(415);
        let event: UserEvent;
        try {
          event = JSON.parse(await bodyOf(request)) as UserEvent;
        } catch (error) {
          throw error instanceof BareError ? error : new BareError(400);
        }
        return json(response, 200, await verikit.send(flowId, event));
      }
      throw new BareError(404);
    };
    work().catch((error: unknown) =>
      json(response, error instanceof BareError ? error.status : 500, { error: 'failed' }),
    );
  };
}

/** The minimal Hono app: one hand route per operation, with the same flow-secret check. */
function honoListener(verikit: Verikit): RequestListener {
  const app = new Hono();
  const owned = (id: string, header: string | undefined) => {
    if (!verikit.isFlowSecret(id, header)) throw new BareError(404);
    return id;
  };
  app.get('/flows/:id', async (c) =>
    c.json(await verikit.get(owned(c.req.param('id'), c.req.header('verikit-flow-secret')))),
  );
  app.post('/flows/:id/events', async (c) => {
    const flowId = owned(c.req.param('id'), c.req.header('verikit-flow-secret'));
    return c.json(await verikit.send(flowId, await c.req.json<UserEvent>()));
  });
  app.onError((error, c) => c.json({ error: 'failed' }, error instanceof BareError ? (error.status as 404) : 500));
  return getRequestListener(app.fetch) as RequestListener;
}

/** The flow handler through toNodeHandler: this source, or the build that `BENCH_HTTP_BEFORE` names. */
async function verikitListener(verikit: Verikit, kind: 'verikit' | 'verikit before'): Promise<RequestListener> {
  const http =
    kind === 'verikit'
      ? { createFlowHandler, toNodeHandler }
      : ((await import(process.env[beforeBuildVariable]!)) as typeof import('@verikit/http'));
  return http.toNodeHandler(http.createFlowHandler({ verikit, maxBodyBytes })) as RequestListener;
}

/**
 * The child's work: one server of `kind` on 127.0.0.1 with `flowCount` flows; sends its port, flow ids and their
 * flow secrets (as the browsers that started them hold them), then answers each `cpu` message with its CPU time.
 */
export async function serve(kind: ServerKind, flowCount: number): Promise<void> {
  // A SIGTERM from the bench ends the child through `exit`, so that `--cpu-prof` (BENCH_HTTP_CPU_PROF) writes.
  process.on('SIGTERM', () => process.exit(0));
  const verikit = createEngine();
  const ids = await startIdentityFlows(verikit, flowCount);
  const listener =
    kind === 'node:http'
      ? bareListener(verikit)
      : kind === 'hono'
        ? honoListener(verikit)
        : await verikitListener(verikit, kind);
  const server = createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const secrets = Object.fromEntries(ids.map((id) => [id, verikit.flowSecret(id)]));
  process.on('message', (message) => {
    if (message === 'cpu') process.send!(process.cpuUsage());
  });
  const ready: ServerReady = { port: (server.address() as AddressInfo).port, ids, secrets };
  process.send!(ready);
}
