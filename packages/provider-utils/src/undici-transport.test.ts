import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger, VerikitError, type ProviderCallContextV1 } from '@verikit/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient, type HttpClientSettings } from './http-client.js';
import { closedPort, startSilentServer } from './network.fixtures.js';

/** What a caller can see of a failure: the parts the default transport must keep the same as `fetch`. */
async function outcome(settings: Partial<HttpClientSettings>, url: string, signal?: AbortSignal) {
  let attempts = 0;
  const http = createHttpClient({
    name: 'demo',
    timeout: 500,
    connectionRetries: 2,
    connectionRetryDelayMs: 1,
    hooks: {
      beforeRequest: [
        () => {
          attempts += 1;
        },
      ],
    },
    ...settings,
  });
  const context: ProviderCallContextV1 = {
    signal: signal ?? new AbortController().signal,
    idempotencyKey: 'flow:effect:1',
    logger: silentLogger,
  };
  try {
    const answer = await http.send({ operation: 'sms.send', url, path: '/x', body: '{"a":1}' }, context);
    return { attempts, status: answer.status, text: answer.text };
  } catch (error) {
    if (!VerikitError.isInstance(error)) throw error;
    const { code, message } = error;
    return {
      attempts,
      code,
      message,
      requestSent: (error as { requestSent?: boolean }).requestSent,
      cause: (error.cause as Error).message,
    };
  }
}

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/drop') return void request.socket.destroy();
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/redirect') return void response.writeHead(302, { location: '/elsewhere' }).end();
      if (request.url === '/no-content') return void response.writeHead(204).end();
      response
        .writeHead(request.url === '/error' ? 503 : 200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ received: Buffer.concat(chunks).toString('utf8'), type: request.headers['content-type'] }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// The default transport (undici's Agent.request) beside a client given the global fetch: every outcome the same.
const transports: Array<[string, Partial<HttpClientSettings>]> = [
  ['the default transport (undici)', {}],
  ['the global fetch', { fetch: globalThis.fetch }],
];

describe('the default transport answers and fails as fetch does', () => {
  it.each(transports)(
    '%s: answers are read whole, whatever the status; redirects are not followed',
    async (_, settings) => {
      expect(await outcome(settings, `${base}/ok`)).toEqual({
        attempts: 1,
        status: 200,
        text: '{"received":"{\\"a\\":1}","type":"application/json"}',
      });
      expect(await outcome(settings, `${base}/error`)).toMatchObject({ attempts: 1, status: 503 });
      expect(await outcome(settings, `${base}/redirect`)).toEqual({ attempts: 1, status: 302, text: '' });
      expect(await outcome(settings, `${base}/no-content`)).toEqual({ attempts: 1, status: 204, text: '' });
    },
  );
  it.each(transports)(
    "%s: a user's afterResponse hook reads the answer's body, and the client still gets its text",
    async (_, settings) => {
      const bodies: string[] = [];
      const hooks = {
        afterResponse: [async (_request: Request, response: Response) => void bodies.push(await response.text())],
      };
      const expected = '{"received":"{\\"a\\":1}","type":"application/json"}';
      expect(await outcome({ ...settings, hooks }, `${base}/ok`)).toMatchObject({ status: 200, text: expected });
      expect(await outcome({ ...settings, hooks }, `${base}/no-content`)).toMatchObject({ status: 204, text: '' });
      expect(bodies).toEqual([expected, '']);
    },
  );
  it.each(transports)('%s: a refused connection is retried, then requestSent false', async (_, settings) => {
    expect(await outcome(settings, `http://127.0.0.1:${await closedPort()}/x`)).toEqual({
      attempts: 3,
      code: 'provider_unavailable',
      message: 'demo sms.send: the connection was refused',
      requestSent: false,
      cause: 'connection-refused (ECONNREFUSED)',
    });
  });
  it.each(transports)('%s: an unknown host is requestSent false, not retried', async (_, settings) => {
    expect(await outcome(settings, 'http://verikit-no-such-host.invalid/x')).toMatchObject({
      attempts: 1,
      code: 'provider_unavailable',
      message: "demo sms.send: the service's host name could not be resolved",
      requestSent: false,
      cause: expect.stringMatching(/^dns \(E[A-Z_]+\)$/),
    });
  });
  it.each(transports)(
    '%s: a connection dropped after the request left: sent unknown, not retried',
    async (_, settings) => {
      expect(await outcome(settings, `${base}/drop`)).toEqual({
        attempts: 1,
        code: 'provider_unavailable',
        message: 'demo sms.send: the service could not be reached',
        requestSent: undefined,
        cause: 'network (UND_ERR_SOCKET)',
      });
    },
  );
  it.each(transports)(
    '%s: no answer within the per-attempt timeout: sent unknown, not retried',
    async (_, settings) => {
      const silent = await startSilentServer();
      try {
        expect(await outcome(settings, `${silent.url}/x`)).toEqual({
          attempts: 1,
          code: 'provider_unavailable',
          message: 'demo sms.send: the service did not answer within 500 ms',
          requestSent: undefined,
          cause: 'timeout',
        });
        expect(silent.received()).toBe(1);
      } finally {
        await silent.close();
      }
    },
  );
  it.each(transports)("%s: the caller's abort ends the attempt", async (_, settings) => {
    const silent = await startSilentServer();
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      expect(await outcome({ ...settings, timeout: 5000 }, `${silent.url}/x`, controller.signal)).toEqual({
        attempts: 1,
        code: 'provider_unavailable',
        message: 'demo sms.send: the call was aborted before the service answered',
        requestSent: undefined,
        cause: 'aborted',
      });
    } finally {
      await silent.close();
    }
  });
});
