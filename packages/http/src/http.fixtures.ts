import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createTestProviderV1, ServerSentEventReader, type TestProviderV1 } from '@verikit/testing';
import {
  MemoryChangeBus,
  type FlowChangeBus,
  type FlowListener,
  createVerikit,
  type Verikit,
  type VerikitOptions,
  type FlowView,
  KeyvFlowStore,
} from '@verikit/core';
import type { WebhooksCapabilityV1 } from '@verikit/provider';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe } from 'vitest';
import { createFlowHandler } from './create-flow-handler.js';
import type { FlowHandlerOptions } from './flow-handler-options.js';
import { toNodeHandler } from './node/node-adapter.js';
import { answerClientErrors } from './node/node-client-errors.js';

/** Test-only fixtures for the HTTP handler's tests. */
export const httpTestSecret = 'http-test-secret-0123456789-abcdefghijkl';
export const phoneNumber = '+2348012345678';
export const otherPhoneNumber = '+2348098765432';

/** A change bus that counts live subscriptions, to prove streams unsubscribe (the client's tests use it too). */
export class CountingChangeBus implements FlowChangeBus {
  readonly #inner = new MemoryChangeBus();
  active = 0;
  subscriptions = 0;

  publish(view: FlowView): void {
    this.#inner.publish(view);
  }

  subscribe(flowId: string, listener: FlowListener): () => void {
    const unsubscribe = this.#inner.subscribe(flowId, listener);
    this.active += 1;
    this.subscriptions += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active -= 1;
      unsubscribe();
    };
  }
}

/** A Map that can be switched off: a store that went down. */
export class SwitchableMap extends Map<string, unknown> {
  down = false;

  override get(key: string): unknown {
    if (this.down) throw new Error('ECONNREFUSED 10.0.0.1:6379 password=hunter2');
    return super.get(key);
  }

  override set(key: string, value: unknown): this {
    if (this.down) throw new Error('ECONNREFUSED 10.0.0.1:6379 password=hunter2');
    return super.set(key, value);
  }
}

/**
 * The two ways a flow handler's routes are answered on node:http (decision 1510): `node`, the Node adapter's own
 * (toNodeHandler reads the handler's route table), and `web`, the Web path (Hono, through @hono/node-server), which
 * every other runtime takes.
 */
const adapters = ['node', 'web'] as const;
type Adapter = (typeof adapters)[number];

let adapterInUse: Adapter = 'node';

/**
 * `describe`, once per adapter: inside, {@link listen} and {@link setupHttp} serve the flow handler through that
 * adapter, so each test runs on both in one run.
 */
export function describeAdapters(name: string, body: () => void): void {
  describe.each(adapters)(`${name} (%s adapter)`, (adapter) => {
    beforeAll(() => {
      adapterInUse = adapter;
    });
    afterAll(() => {
      adapterInUse = 'node';
    });
    body();
  });
}

/**
 * A listening node:http server on 127.0.0.1, port 0, set up as docs/http.md shows. Inside
 * {@link describeAdapters}'s `web` pass, the flow handler is wrapped: toNodeHandler then serves its routes on the
 * Web path instead of its own (decision 1510).
 */
export async function listen(
  handler: (request: Request, env?: unknown) => Promise<Response>,
): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const served = adapterInUse === 'web' ? webPathOf(handler) : handler;
  const server = answerClientErrors(createServer(toNodeHandler(served)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The same handler without its route table: toNodeHandler serves it through a Web `Request` and `Response`. */
export function webPathOf(
  handler: (request: Request, env?: unknown) => Promise<Response>,
): (request: Request, env?: unknown) => Promise<Response> {
  return (request, env) => handler(request, env);
}

export interface HttpSetup {
  verikit: Verikit;
  provider: TestProviderV1;
  bus: CountingChangeBus;
  map: SwitchableMap;
  url: string;
  close: () => Promise<void>;
  /** Every stored value, serialized: to prove a refused request changed nothing. */
  snapshot: () => Promise<string>;
}

/** An engine on the test double and an in-memory store, served over real HTTP by the flow handler. */
export async function setupHttp(
  handlerOptions: Omit<FlowHandlerOptions, 'verikit'> = {},
  engineOptions: Partial<VerikitOptions> = {},
  webhooks?: WebhooksCapabilityV1,
): Promise<HttpSetup> {
  // The test double pushes no webhooks; a test that needs them gives it the service's parser.
  const provider =
    webhooks === undefined ? createTestProviderV1() : Object.assign(createTestProviderV1(), { webhooks });
  const map = new SwitchableMap();
  const keyv = new Keyv({
    store: map,
    serialize: JSON.stringify,
    deserialize: JSON.parse,
    throwOnErrors: true,
    namespace: 'verikit',
  });
  const bus = new CountingChangeBus();
  const verikit = createVerikit({
    provider,
    secret: httpTestSecret,
    store: new KeyvFlowStore(keyv),
    changeBus: bus,
    ...engineOptions,
  });
  // These tests predate flow secrets and read flows by id alone: they opt out, as an app that
  // authorizes by its own session would. The attack tests (src/attacks) run with the default.
  const served = await listen(createFlowHandler({ verikit, requireFlowSecret: false, ...handlerOptions }));
  return {
    verikit,
    provider,
    bus,
    map,
    url: served.url,
    close: served.close,
    snapshot: async () => JSON.stringify([...map.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

/**
 * An engine clock that stands still at the time of the call: views carry `serverTime`, so two reads
 * of an unchanged flow are equal only when the clock has not moved between them.
 */
export function frozenClock(): { now: () => number } {
  const now = Date.now();
  return { now: () => now };
}

/** POSTs JSON. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The error body of a response. */
export async function errorOf(response: Response): Promise<{
  code: string;
  message: string;
  field?: string;
  issues?: Array<{ field: string; message: string }>;
  allowed?: string[];
}> {
  const body = (await response.json()) as { error: { code: string; message: string; field?: string } };
  return body.error;
}

/** Server-sent events of a flow stream: `nextView` reads the next `view` event. */
export class EventReader extends ServerSentEventReader {
  /** The next `view` event, skipping comments and `retry`; undefined when the stream ended. */
  async nextView(): Promise<{ id: string; view: FlowView } | undefined> {
    const event = await this.nextEvent('view');
    return event === undefined ? undefined : { id: event.id ?? '', view: JSON.parse(event.data) as FlowView };
  }
}

/** One raw answer: status, lower-cased headers, body (empty for a server-sent-events stream, which is closed at once). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends raw bytes on a fresh connection and reads the one answer: for requests no HTTP client
 * would send (any method token, any target, a missing or malformed Host).
 */
export function rawExchange(port: number, raw: string | Uint8Array): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let head: { status: number; headers: Record<string, string>; start: number } | undefined;
    const finish = () => {
      socket.destroy();
      if (head === undefined) return reject(new Error(`no answer to ${String(raw).slice(0, 120)}`));
      resolve({ status: head.status, headers: head.headers, body: received.subarray(head.start).toString('utf8') });
    };
    socket.setTimeout(5000, finish);
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (head === undefined && end >= 0) {
        const [statusLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [
            line.slice(0, line.indexOf(':')).toLowerCase(),
            line.slice(line.indexOf(':') + 1).trim(),
          ]),
        );
        head = { status: Number(statusLine.split(' ')[1]), headers, start: end + 4 };
        if (headers['content-type']?.startsWith('text/event-stream')) return finish();
      }
      if (
        head !== undefined &&
        head.headers['content-length'] !== undefined &&
        received.length - head.start >= Number(head.headers['content-length'])
      )
        finish();
    });
    socket.write(raw);
  });
}
