import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderUnavailableError, silentLogger, VerikitError, type ProviderCallContextV1 } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { createHttpClient } from './http-client.js';
import { closedPort, startSilentServer } from './network.fixtures.js';
import { statusError } from './status-error.js';
import { redactMessage } from './redact.js';

const key = 'sk_live_Http-Client-Key-42';
const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});

async function failure(promise: Promise<unknown>): Promise<VerikitError> {
  try {
    await promise;
  } catch (error) {
    expect(VerikitError.isInstance(error)).toBe(true);
    return error as VerikitError;
  }
  throw new Error('expected a failure');
}

async function startEcho() {
  const seen: Array<{ method?: string; url?: string; headers: Record<string, unknown>; body: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('createHttpClient: what provably did not leave, and what may have', () => {
  it('a refused connection is retried, then is a ProviderUnavailableError with requestSent false', async () => {
    const port = await closedPort();
    let fetches = 0;
    const http = createHttpClient({
      name: 'demo',
      timeout: 1000,
      connectionRetries: 2,
      connectionRetryDelayMs: 1,
      fetch: (input, init) => {
        fetches += 1;
        return fetch(input, init);
      },
    });
    const error = await failure(
      http.send({ operation: 'sms.send', url: `http://127.0.0.1:${port}/x`, path: '/x', body: '{}' }, context()),
    );
    expect(ProviderUnavailableError.isInstance(error) && error.requestSent).toBe(false);
    expect(fetches).toBe(3);
  });
  it('a host name that does not resolve is requestSent false, and is not retried', async () => {
    let fetches = 0;
    const http = createHttpClient({
      name: 'demo',
      timeout: 5000,
      connectionRetries: 2,
      connectionRetryDelayMs: 1,
      fetch: (input, init) => {
        fetches += 1;
        return fetch(input, init);
      },
    });
    const error = await failure(
      http.send(
        { operation: 'sms.send', url: 'http://verikit-no-such-host.invalid/x', path: '/x', body: '{}' },
        context(),
      ),
    );
    expect(ProviderUnavailableError.isInstance(error) && error.requestSent).toBe(false);
    expect((error.cause as Error).message).toMatch(/^dns \(E[A-Z_]+\)$/);
    expect(fetches).toBe(1);
  });
  it('a timeout after the request left is requestSent unknown, never retried', async () => {
    const server = await startSilentServer();
    try {
      const http = createHttpClient({ name: 'demo', timeout: 500, connectionRetries: 2, connectionRetryDelayMs: 1 });
      // 500 ms, not less: on a loaded machine the request must have time to leave before the timeout, or nothing tests it.
      const error = await failure(
        http.send({ operation: 'sms.send', url: `${server.url}/x`, path: '/x', body: '{}' }, context()),
      );
      expect(ProviderUnavailableError.isInstance(error)).toBe(true);
      expect((error as ProviderUnavailableError).requestSent).toBeUndefined();
      expect(error.message).toBe('demo sms.send: the service did not answer within 500 ms');
      expect(server.received()).toBe(1);
    } finally {
      await server.close();
    }
  });
  it('5xx, 429 and 408 answers are requestSent true (the provider answered)', () => {
    for (const status of [500, 503, 429, 408])
      expect((statusError('demo op', status, undefined) as ProviderUnavailableError).requestSent).toBe(true);
  });
});

/** A client whose `beforeRequest` hook keeps every Request it is shown. */
function hookedClient() {
  const hooked: Request[] = [];
  const http = createHttpClient({
    name: 'demo',
    timeout: 30_000, // a bound on a hang only: a local echo under a loaded CI machine
    connectionRetries: 0,
    connectionRetryDelayMs: 0,
    hooks: { beforeRequest: [(request) => void hooked.push(request)] },
  });
  return { http, hooked };
}

describe('createHttpClient: credentials', () => {
  it('authorize adds the key to a copy of the headers (or the body); hooks never see it', async () => {
    const echo = await startEcho();
    const { http, hooked } = hookedClient();
    try {
      await http.send(
        {
          operation: 'sms.send',
          url: `${echo.url}/send`,
          path: '/send',
          body: '{"to":"2348030000000"}',
          authorize(headers, body) {
            headers['authorization'] = `Bearer ${key}`;
            return `{"api_key":${JSON.stringify(key)},${body!.slice(1)}`;
          },
        },
        context(),
      );
      expect(echo.seen[0]!.headers['authorization']).toBe(`Bearer ${key}`);
      expect(JSON.parse(echo.seen[0]!.body)).toEqual({ api_key: key, to: '2348030000000' });
      expect(hooked).toHaveLength(1);
      expect(JSON.stringify(Object.fromEntries(hooked[0]!.headers))).not.toContain(key);
    } finally {
      await echo.close();
    }
  });
  it('a GET carries its query, added at the last moment: the Request hooks see has none', async () => {
    const echo = await startEcho();
    const { http, hooked } = hookedClient();
    try {
      const answer = await http.send(
        {
          operation: 'identitySteps.match',
          method: 'GET',
          url: `${echo.url}/api/v1/kyc/bvn`,
          path: '/api/v1/kyc/bvn',
          query: { bvn: '22222222222', first_name: 'Adaeze Ọlá' },
          authorize(headers) {
            headers['authorization'] = key;
            return undefined;
          },
        },
        context(),
      );
      expect(answer.status).toBe(200);
      expect(echo.seen[0]).toMatchObject({
        method: 'GET',
        url: '/api/v1/kyc/bvn?bvn=22222222222&first_name=Adaeze+%E1%BB%8Cl%C3%A1',
        body: '',
      });
      expect(echo.seen[0]!.headers['authorization']).toBe(key);
      expect(hooked).toHaveLength(1);
      expect(hooked[0]!.method).toBe('GET');
      expect(hooked[0]!.url).toBe(`${echo.url}/api/v1/kyc/bvn`);
    } finally {
      await echo.close();
    }
  });
  it('redactMessage removes every secret before masking digits', () => {
    expect(redactMessage(`key ${key} and code 123456`, [key])).toBe('key [redacted] and code ••••••');
    expect(redactMessage(undefined, [key])).toBeUndefined();
    expect(redactMessage('x'.repeat(5000), [])!.length).toBe(200);
  });
});
