import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createVerikit, KeyvFlowStore, type Verikit, type VerikitOptions } from '@verikit/core';
import { createFlowHandler, toNodeHandler, type FlowHandlerOptions } from '@verikit/http';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import Keyv from 'keyv';
import { CountingChangeBus, SwitchableMap } from '../../http/src/http.fixtures.js';
import type { FlowView } from './flow-view.js';
import type { FlowClientTimers } from './timers.js';

/** Test-only fixtures: a real flow server (engine on the test double, flow handler, node:http) for the client's tests. */
export const phoneNumber = '+2348012345678';
const testSecret = 'client-test-secret-0123456789-abcdefghij';

/** A request the server saw: method, path and `Last-Event-ID`. */
interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly lastEventId: string | null;
}

/** Wraps the flow handler: answers a request itself when it returns a response, else passes it on. */
type Interceptor = (request: Request) => Response | undefined | Promise<Response | undefined>;

export interface FlowServer {
  url: string;
  verikit: Verikit;
  provider: TestProviderV1;
  bus: CountingChangeBus;
  map: SwitchableMap;
  requests: SeenRequest[];
  /** Set to answer (or alter) requests before the flow handler does. */
  intercept: Interceptor | undefined;
  /** Destroys the sockets of every open stream: a dropped connection. */
  dropStreams(): number;
  close(): Promise<void>;
}

/** An engine on the test double and an in-memory store, served over real HTTP on 127.0.0.1 by the flow handler. */
export async function startFlowServer(
  engineOptions: Partial<VerikitOptions> = {},
  handlerOptions: Omit<FlowHandlerOptions, 'verikit'> = {},
): Promise<FlowServer> {
  const provider = createTestProviderV1({ latencyMs: 5 });
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
    secret: testSecret,
    store: new KeyvFlowStore(keyv),
    changeBus: bus,
    ...engineOptions,
  });
  const handler = createFlowHandler({ verikit, ...handlerOptions });
  const requests: SeenRequest[] = [];
  const streamSockets = new Set<Socket>();
  const state: { intercept: Interceptor | undefined } = { intercept: undefined };
  const nodeHandler = toNodeHandler(async (request) => {
    requests.push({
      method: request.method,
      path: new URL(request.url).pathname,
      lastEventId: request.headers.get('last-event-id'),
    });
    return (await state.intercept?.(request)) ?? handler(request);
  });
  const server: Server = createServer((req, res) => {
    if (req.url?.endsWith('/stream') === true) {
      streamSockets.add(req.socket);
      req.socket.once('close', () => streamSockets.delete(req.socket));
    }
    nodeHandler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    verikit,
    provider,
    bus,
    map,
    requests,
    get intercept() {
      return state.intercept;
    },
    set intercept(value) {
      state.intercept = value;
    },
    dropStreams() {
      const count = streamSockets.size;
      for (const socket of streamSockets) socket.destroy();
      return count;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The platform's timers, counting those still pending: to prove an observer leaves none behind. */
export function countingTimers(): FlowClientTimers & { pending: Set<unknown> } {
  const pending = new Set<unknown>();
  return {
    pending,
    now: () => Date.now(),
    setTimeout(callback, ms) {
      const handle = setTimeout(() => {
        pending.delete(handle);
        callback();
      }, ms);
      pending.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      pending.delete(handle);
      clearTimeout(handle as ReturnType<typeof setTimeout>);
    },
  };
}

/** The views a listener saw, each once (connection changes also notify), in order. */
export function recordVersions(): {
  versions: number[];
  statuses: string[];
  listener: (result: { view: FlowView | undefined }) => void;
} {
  const versions: number[] = [];
  const statuses: string[] = [];
  let last: FlowView | undefined;
  return {
    versions,
    statuses,
    listener: ({ view }) => {
      if (view === undefined || view === last) return;
      last = view;
      versions.push(view.version);
      statuses.push(view.status);
    },
  };
}
