/**
 * Wire-level tests, real HTTP on 127.0.0.1 with nothing mocked:
 * - the USSD webhook path end to end (sandbox → node:http app running the flow handler → engine),
 *   through a failed first delivery and the sandbox's retry, then a replay of the same delivery;
 * - the gateway client's retry rule (docs/service.md, "What the interface leaves unsaid"): retry only what provably did not leave.
 */
import { createVerikit, KeyvFlowStore, StoreError, type FlowRecord, type FlowView, type Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { ProviderUnavailableError, silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { createGatewayProvider } from './index.js';
import { failureOf } from '@verikit/testing';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { gatewayOver } from './gateway.fixtures.js';
import { startScriptedServer } from './scripted-server.fixtures.js';
import { generateWebhookSecret, startGatewayFake, type GatewayFake } from './fake/start-gateway-fake.js';

const engineSecret = 'gateway-wire-test-secret-0123456789abcdef';
const apiKey = 'sk_live_wire-Test-Key-0123456789';

let sequence = 0;
function context(): ProviderCallContextV1 {
  return { signal: new AbortController().signal, idempotencyKey: `flow:effect:${++sequence}`, logger: silentLogger };
}

function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

// ---------------------------------------------------------------------------------------------
// 1. The USSD webhook, end to end, with a retry
// ---------------------------------------------------------------------------------------------

/** One POST /webhooks the app received, as it came off the wire, and what the app answered. */
interface ReceivedDelivery {
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly status: number;
  readonly answer: unknown;
}

/** A flow store that can be made to fail its next flow write, as a store that is down once. */
class DownOnceStore extends KeyvFlowStore {
  failNextWrite = false;
  failedWrites = 0;
  override compareAndSetFlow(record: FlowRecord, expectedVersion: number, ttlMs: number): Promise<boolean> {
    if (this.failNextWrite) {
      this.failNextWrite = false;
      this.failedWrites += 1;
      return Promise.reject(new StoreError('the flow store failed to write a flow'));
    }
    return super.compareAndSetFlow(record, expectedVersion, ttlMs);
  }
}

/**
 * The application as a user deploys it (examples/demo/demo.ts): node:http serving
 * `toNodeHandler(createFlowHandler({ verikit }))`, the engine on the gateway provider over the
 * sandbox, the sandbox sending its signed webhooks to the app's /webhooks route. A thin wrapper
 * records every webhook delivery and can answer the first `refuseFirst` with a 503 without calling
 * verikit (the app was briefly unavailable).
 */
async function startWebhookApp(options: { refuseFirst?: number; store?: KeyvFlowStore } = {}) {
  let refusals = options.refuseFirst ?? 0;
  const received: ReceivedDelivery[] = [];
  let flowHandler: ((request: Request) => Promise<Response>) | undefined;
  const wrapped = async (request: Request): Promise<Response> => {
    if (request.method !== 'POST' || new URL(request.url).pathname !== '/webhooks') return flowHandler!(request);
    const body = await request.clone().text();
    const headers = Object.fromEntries(request.headers);
    let response: Response;
    if (refusals > 0) {
      refusals -= 1;
      response = new Response('temporarily unavailable', { status: 503 });
    } else {
      response = await flowHandler!(request);
    }
    const answer = await response
      .clone()
      .json()
      .catch(() => undefined);
    received.push({ headers, body, status: response.status, answer });
    return response;
  };
  const server = createHttpServer(toNodeHandler(wrapped));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const webhookSecret = generateWebhookSecret();
  // Retries on the schedule alone: the app's Retry-After (30 s after a store outage) is honoured in retry-after-end-to-end.test.ts.
  const sandbox: GatewayFake = await startGatewayFake({
    webhookUrl: `${appUrl}/webhooks`,
    webhookSecret,
    webhookRetryDelaysMs: [20],
    webhookMaxRetryAfterMs: 0,
  });
  const provider = gatewayOver(sandbox);
  const verikit: Verikit = createVerikit({
    provider,
    secret: engineSecret,
    ...(options.store ? { store: options.store } : {}),
  });
  flowHandler = createFlowHandler({ verikit, webhooks: { secret: webhookSecret } });

  return {
    appUrl,
    sandbox,
    verikit,
    received,
    /** Posts a captured delivery to the app again, byte for byte. */
    replay: (delivery: ReceivedDelivery) =>
      fetch(`${appUrl}/webhooks`, {
        method: 'POST',
        headers: {
          'content-type': delivery.headers['content-type']!,
          'webhook-id': delivery.headers['webhook-id']!,
          'webhook-timestamp': delivery.headers['webhook-timestamp']!,
          'webhook-signature': delivery.headers['webhook-signature']!,
        },
        body: delivery.body,
      }),
    async close() {
      await sandbox.close();
      await closeServer(server);
    },
  };
}

/** Starts a USSD flow through the app's HTTP API, as a browser would. */
async function startUssdOverHttp(appUrl: string, phoneNumber: string): Promise<FlowView> {
  const response = await fetch(`${appUrl}/flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'ussd', phoneNumber }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as FlowView;
}

async function readOverHttp(app: { appUrl: string; verikit: Verikit }, flowId: string): Promise<FlowView> {
  const response = await fetch(`${app.appUrl}/flows/${flowId}`, {
    headers: { 'verikit-flow-secret': app.verikit.flowSecret(flowId) },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as FlowView;
}

describe('USSD webhook end to end: sandbox → node:http flow handler → engine, with retries', () => {
  it('a delivery refused with 503 is retried; the flow is verified by exactly one change; a replay is a duplicate', async () => {
    const app = await startWebhookApp({ refuseFirst: 1 });
    try {
      const phoneNumber = '+2348031239001';
      const started = await startUssdOverHttp(app.appUrl, phoneNumber);
      expect(started.status).toBe('awaiting-dial');
      expect(started.otp).toBe(app.sandbox.lastCode(phoneNumber));
      const committed: FlowView[] = [];
      const unsubscribe = app.verikit.subscribe(started.id, (view) => committed.push(view));

      const delivery = await app.sandbox.dialUssd(phoneNumber, { otp: started.otp! });

      // The sandbox's own record: delivered on the second attempt, with a 200.
      expect(delivery).toMatchObject({ delivered: true, attempts: 2, lastStatus: 200 });
      expect(app.sandbox.deliveries.filter((each) => each.id === delivery.id)).toEqual([delivery]);
      // The app saw two deliveries of the same message: the refused one and the retry, which was applied.
      expect(app.received.map((each) => [each.headers['webhook-id'], each.status])).toEqual([
        [delivery.id, 503],
        [delivery.id, 200],
      ]);
      expect(app.received[1]!.body).toBe(app.received[0]!.body);
      expect(JSON.parse(app.received[1]!.body)).toMatchObject({
        event: 'USSD_VERIFICATION',
        phoneNumber,
        status: 'success',
      });
      expect(app.received[1]!.answer).toEqual({ status: 'applied', flowId: started.id });

      // Exactly one committed change, made by the webhook: the flow went to verified, one version up.
      const verified = await readOverHttp(app, started.id);
      expect(verified.status).toBe('verified');
      expect(verified.version).toBe(started.version + 1);
      expect(committed.map((view) => [view.status, view.version])).toEqual([['verified', started.version + 1]]);

      // The same delivery again (same webhook-id, timestamp, signature and body): acknowledged as a duplicate, nothing changes.
      const replay = await app.replay(app.received[1]!);
      expect(replay.status).toBe(200);
      expect(await replay.json()).toEqual({ status: 'duplicate' });
      // The first (refused) attempt's copy is the same message too.
      const replayOfFirst = await app.replay(app.received[0]!);
      expect([replayOfFirst.status, await replayOfFirst.json()]).toEqual([200, { status: 'duplicate' }]);

      const after = await readOverHttp(app, started.id);
      expect([after.status, after.version]).toEqual(['verified', verified.version]);
      expect(committed).toHaveLength(1);
      unsubscribe();
    } finally {
      await app.close();
    }
  });

  it('a store down during the first delivery answers 503 retry; the sandbox retry applies it once; a replay is a duplicate', async () => {
    const store = new DownOnceStore();
    const app = await startWebhookApp({ store });
    try {
      const phoneNumber = '+2348031239002';
      const started = await startUssdOverHttp(app.appUrl, phoneNumber);
      const committed: FlowView[] = [];
      const unsubscribe = app.verikit.subscribe(started.id, (view) => committed.push(view));

      store.failNextWrite = true;
      const delivery = await app.sandbox.dialUssd(phoneNumber, { otp: started.otp! });

      expect(store.failedWrites).toBe(1);
      expect(delivery).toMatchObject({ delivered: true, attempts: 2, lastStatus: 200 });
      expect(app.received.map((each) => [each.headers['webhook-id'], each.status])).toEqual([
        [delivery.id, 503],
        [delivery.id, 200],
      ]);
      // The first attempt reached verikit, which asked the sender to deliver again later.
      expect(app.received[0]!.answer).toMatchObject({ status: 'retry', error: { code: 'store_unavailable' } });
      expect(app.received[1]!.answer).toEqual({ status: 'applied', flowId: started.id });

      const verified = await readOverHttp(app, started.id);
      expect([verified.status, verified.version]).toEqual(['verified', started.version + 1]);
      expect(committed.map((view) => [view.status, view.version])).toEqual([['verified', started.version + 1]]);

      const replay = await app.replay(app.received[1]!);
      expect([replay.status, await replay.json()]).toEqual([200, { status: 'duplicate' }]);
      const after = await readOverHttp(app, started.id);
      expect(after.version).toBe(verified.version);
      expect(committed).toHaveLength(1);
      unsubscribe();
    } finally {
      await app.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Retry only what provably did not leave
// ---------------------------------------------------------------------------------------------

/** A provider on `url` whose fetch calls are counted. */
function countedProvider(url: string) {
  const counter = { fetches: 0 };
  const provider = createGatewayProvider({
    apiKey,
    baseUrl: url,
    ussdBaseUrl: url,
    defaultSender: 'Verikit',
    timeout: 2000,
    connectionRetries: 2,
    connectionRetryDelayMs: 1,
    fetch: (input, init) => {
      counter.fetches += 1;
      return fetch(input, init);
    },
  });
  return { provider, counter };
}

/**
 * A raw TCP server that reads each HTTP request in full (head and Content-Length body), counts it,
 * and then drops the connection without answering: the request reached the service, the answer
 * never came. `reset` sends a TCP RST (ECONNRESET) instead of a FIN ("other side closed").
 */
async function startHangUpServer(mode: 'close' | 'reset') {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.subarray(0, headEnd).toString('latin1');
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < headEnd + 4 + length) return;
      requests.push(
        `${head.split('\r\n')[0]} ${buffered.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8')}`,
      );
      if (mode === 'reset') socket.resetAndDestroy();
      else socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('gateway client: retries only where the request provably did not leave', () => {
  const unavailable: Array<[number, Record<string, string>]> = [
    [429, { 'retry-after': '0' }],
    [408, {}],
    [503, { 'retry-after': '0' }],
  ];
  for (const [status, headers] of unavailable) {
    it(`HTTP ${status} is a retryable ProviderUnavailableError, and is not retried (one fetch, one request)`, async () => {
      const server = await startScriptedServer();
      try {
        const { provider, counter } = countedProvider(server.url);
        server.answer({
          status,
          headers,
          body: JSON.stringify({ success: false, message: 'Error sending message', code: 0, data: null }),
        });
        server.answer({
          status,
          headers,
          body: JSON.stringify({ success: false, message: 'Error sending message', code: 0, data: null }),
        });
        const error = await failureOf(
          provider.sms!.send({ from: 'Shop', to: '+2348031239101', message: 'hi' }, context()),
        );
        expect(ProviderUnavailableError.isInstance(error)).toBe(true);
        expect(error.isRetryable).toBe(true);
        expect(error.message).toContain(`HTTP ${status}`);
        expect(counter.fetches).toBe(1);
        expect(server.requests).toHaveLength(1);
      } finally {
        await server.close();
      }
    });
  }

  for (const mode of ['close', 'reset'] as const) {
    it(`a connection dropped after the request was read (${mode === 'reset' ? 'ECONNRESET' : 'socket hang up'}) is a ProviderUnavailableError, never retried`, async () => {
      const server = await startHangUpServer(mode);
      try {
        const { provider, counter } = countedProvider(server.url);
        const error = await failureOf(
          provider.sms!.send({ from: 'Shop', to: '+2348031239102', message: 'hi' }, context()),
        );
        expect(ProviderUnavailableError.isInstance(error)).toBe(true);
        expect(error.message).toContain('could not be reached');
        // Told apart from a refused connection: a network failure after the request was written.
        expect((error.cause as Error).message).toMatch(/^network \((UND_ERR_SOCKET|ECONNRESET)\)$/);
        // Counted where it matters: the service got the request exactly once.
        expect(server.requests).toEqual([
          `POST /gateway/api/v1/send/sms HTTP/1.1 ${JSON.stringify({ from: 'Shop', message: 'hi', to: '+2348031239102' })}`,
        ]);
        expect(counter.fetches).toBe(1);
      } finally {
        await server.close();
      }
    });
  }

  it('a refused connection is retried (connectionRetries + 1 attempts), then is a ProviderUnavailableError', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const { provider, counter } = countedProvider(`http://127.0.0.1:${port}`);
    const logged: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const logger = {
      ...silentLogger,
      debug: (message: string, fields?: Record<string, unknown>) => void logged.push({ message, fields }),
    };
    const error = await failureOf(
      provider.sms!.send({ from: 'Shop', to: '+2348031239103', message: 'hi' }, { ...context(), logger }),
    );
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error.cause as Error).message).toBe('connection-refused (ECONNREFUSED)');
    expect(counter.fetches).toBe(3);
    // Each attempt is logged once, numbered, with the endpoint's path.
    const attempts = logged
      .filter((line) => line.message === 'verikit.gateway.request')
      .map((line) => [line.fields?.attempt, line.fields?.path]);
    expect(attempts).toEqual([0, 1, 2].map((attempt) => [attempt, '/gateway/api/v1/send/sms']));
  });
});
