import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EventNotAllowedError } from '@verikit/core';
import { InvalidInputError, RateLimitedError, VerikitError } from '@verikit/provider';
import { phoneNumber, startFlowServer, type FlowServer } from './client.fixtures.js';
import { createFlowClient } from './create-flow-client.js';
import { FlowClientError } from './errors/flow-client-error.js';

let server: FlowServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function failure(promise: Promise<unknown>): Promise<FlowClientError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!FlowClientError.isInstance(error)) throw new Error(`expected a FlowClientError, got ${String(error)}`);
  return error;
}

describe('createFlowClient: start, send, get over real HTTP', () => {
  it('starts a phone flow, reads it, submits the code and sees it verified', async () => {
    // The engine's clock stands still, so the view read again carries the same serverTime.
    const now = Date.now();
    server = await startFlowServer({ clock: { now: () => now } });
    const client = createFlowClient({ baseUrl: `${server.url}/` });
    expect(client.baseUrl).toBe(server.url);
    const started = await client.start({ kind: 'phone', phoneNumber });
    expect(started).toMatchObject({
      kind: 'phone',
      status: 'awaiting-code',
      done: false,
      phoneNumber: '+234******5678',
    });
    expect(started.allowed).toEqual(['submit-code', 'cancel']);
    expect(await client.get(started.id)).toEqual(started);
    const verified = await client.send(started.id, {
      type: 'submit-code',
      code: server.provider.lastCode(phoneNumber)!,
    });
    expect(verified).toMatchObject({ status: 'verified', done: true });
    expect(verified.version).toBeGreaterThan(started.version);
    expect(server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'POST /flows',
      `GET /flows/${started.id}`,
      `POST /flows/${started.id}/events`,
    ]);
  });

  it('works below a base path and sends the configured headers, fixed or computed per request', async () => {
    const seen: Array<string | null> = [];
    server = await startFlowServer(
      {},
      {
        basePath: '/api/verify',
        authorize: (request) => {
          seen.push(request.headers.get('authorization'));
          return true;
        },
      },
    );
    let token = 0;
    const client = createFlowClient({
      baseUrl: `${server.url}/api/verify`,
      headers: () => ({ authorization: `Bearer t${++token}` }),
    });
    const view = await client.start({ kind: 'ussd', phoneNumber });
    await client.get(view.id);
    expect(seen).toEqual(['Bearer t1', 'Bearer t2']);
    const fixed = createFlowClient({ baseUrl: `${server.url}/api/verify`, headers: { authorization: 'Bearer fixed' } });
    // Another client holds no flow secret: it can start, but not read the first client's flow.
    await fixed.start({ kind: 'phone', phoneNumber });
    expect(seen.at(-1)).toBe('Bearer fixed');
  });

  it('uses the fetch it is given', async () => {
    server = await startFlowServer();
    const urls: string[] = [];
    const client = createFlowClient({
      baseUrl: server.url,
      fetch: (input, init) => {
        urls.push(String(input));
        return fetch(input, init);
      },
    });
    await client.start({ kind: 'ussd', phoneNumber });
    expect(urls).toEqual([`${server.url}/flows`]);
  });
});

describe('createFlowClient: the server typed errors, rebuilt', () => {
  it('invalid_input keeps its field, issues and isRetryable, and passes the server guards', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const error = await failure(client.start({ kind: 'phone', phoneNumber: '08012345678' }));
    expect(error).toMatchObject({
      name: 'InvalidInputError',
      code: 'invalid_input',
      field: 'phoneNumber',
      isRetryable: false,
      statusCode: 400,
    });
    expect(error.issues).toEqual([{ field: 'phoneNumber', message: expect.any(String) }]);
    expect(error.message).not.toContain('08012345678');
    expect(VerikitError.isInstance(error)).toBe(true);
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(error.toJSON()).toEqual({
      name: 'InvalidInputError',
      code: 'invalid_input',
      message: error.message,
      field: 'phoneNumber',
      isRetryable: false,
    });
  });

  it('a bad code names event.code without echoing it', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const view = await client.start({ kind: 'phone', phoneNumber });
    const error = await failure(client.send(view.id, { type: 'submit-code', code: '12ab9' }));
    expect(error).toMatchObject({ code: 'invalid_input', field: 'event.code', statusCode: 400 });
    expect(JSON.stringify(error.toJSON())).not.toContain('12ab9');
  });

  it('event_not_allowed carries allowed (a resend during the cooldown)', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const view = await client.start({ kind: 'phone', phoneNumber });
    const error = await failure(client.send(view.id, { type: 'resend' }));
    expect(error).toMatchObject({
      name: 'EventNotAllowedError',
      code: 'event_not_allowed',
      field: 'event.type',
      isRetryable: false,
      statusCode: 409,
    });
    expect(error.allowed).toEqual(['submit-code', 'cancel']);
    expect(EventNotAllowedError.isInstance(error)).toBe(true);
  });

  it('rate_limited carries retryAt and the Retry-After wait', async () => {
    server = await startFlowServer({ policies: { maxSendsPerHour: 1 } });
    const client = createFlowClient({ baseUrl: server.url });
    await client.start({ kind: 'phone', phoneNumber });
    const before = Date.now();
    // The same client would resume its live flow: another browser (another owner) is refused.
    const other = createFlowClient({ baseUrl: server.url });
    const error = await failure(other.start({ kind: 'phone', phoneNumber }));
    expect(error).toMatchObject({ code: 'rate_limited', isRetryable: true, statusCode: 429 });
    expect(error.retryAt).toBeGreaterThan(before);
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(RateLimitedError.isInstance(error)).toBe(true);
  });

  it('flow_not_found for an unknown flow; store_unavailable (retryable, 503) during a store outage', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    expect(await failure(client.get('A'.repeat(22)))).toMatchObject({
      code: 'flow_not_found',
      statusCode: 404,
      isRetryable: false,
    });
    const view = await client.start({ kind: 'ussd', phoneNumber });
    server.map.down = true;
    expect(await failure(client.get(view.id))).toMatchObject({
      code: 'store_unavailable',
      statusCode: 503,
      isRetryable: true,
      retryAfterMs: 1000,
    });
  });

  it('no answer is a retryable network_error; an answer that is not the API (a proxy page) is bad_response', async () => {
    const proxy = createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><body>Bad Gateway</body></html>');
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    const { port } = proxy.address() as AddressInfo;
    try {
      const viaProxy = createFlowClient({ baseUrl: `http://127.0.0.1:${port}` });
      expect(await failure(viaProxy.get('A'.repeat(22)))).toMatchObject({
        code: 'bad_response',
        statusCode: 502,
        isRetryable: true,
      });
    } finally {
      proxy.close();
      await once(proxy, 'close');
    }
    const nowhere = createFlowClient({ baseUrl: `http://127.0.0.1:${port}` });
    expect(await failure(nowhere.get('A'.repeat(22)))).toMatchObject({
      name: 'NetworkError',
      code: 'network_error',
      statusCode: 0,
      isRetryable: true,
    });
  });

  it('a 2xx answer that is not a view of the flow asked for is bad_response', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const view = await client.start({ kind: 'ussd', phoneNumber });
    const other = await client.start({ kind: 'ussd', phoneNumber: '+2348098765432' });
    for (const body of [
      'not json',
      '{"id":"x"}',
      JSON.stringify({ ...other }),
      JSON.stringify({ ...view, version: -1 }),
      JSON.stringify({ ...view, allowed: 'cancel' }),
    ]) {
      server.intercept = () => new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
      expect(await failure(client.get(view.id))).toMatchObject({
        code: 'bad_response',
        statusCode: 200,
        isRetryable: false,
      });
    }
  });

  it('an abort rejects with the signal reason, not a network error', async () => {
    server = await startFlowServer();
    const client = createFlowClient({ baseUrl: server.url });
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    await expect(client.start({ kind: 'ussd', phoneNumber }, { signal: controller.signal })).rejects.toThrow(
      'user left',
    );
  });
});

describe('createFlowClient: malformed and hostile arguments are refused before any request', () => {
  it('options: baseUrl, fetch, headers, timers', () => {
    const cases: Array<[unknown, string]> = [
      [undefined, 'options'],
      [{}, 'baseUrl'],
      [{ baseUrl: '' }, 'baseUrl'],
      [{ baseUrl: 'api/verify' }, 'baseUrl'],
      [{ baseUrl: '//evil.example.com' }, 'baseUrl'],
      [{ baseUrl: 'javascript:alert(1)' }, 'baseUrl'],
      [{ baseUrl: 'https://user:secret@example.com' }, 'baseUrl'],
      [{ baseUrl: 'https://example.com/api?x=1' }, 'baseUrl'],
      [{ baseUrl: `/${'a'.repeat(3000)}` }, 'baseUrl'],
      [{ baseUrl: '/api', fetch: 'fetch' }, 'fetch'],
      [{ baseUrl: '/api', headers: 42 }, 'headers'],
      [{ baseUrl: '/api', timers: { now: () => 0 } }, 'timers'],
    ];
    for (const [options, field] of cases) {
      let caught: unknown;
      try {
        createFlowClient(options as never);
      } catch (error) {
        caught = error;
      }
      expect(FlowClientError.isInstance(caught), JSON.stringify(options)).toBe(true);
      expect(caught).toMatchObject({ code: 'invalid_input', field, statusCode: 0 });
      expect((caught as Error).message).not.toContain('secret');
    }
    expect(createFlowClient({ baseUrl: '/api/verify/' }).baseUrl).toBe('/api/verify');
    expect(createFlowClient({ baseUrl: '/' }).baseUrl).toBe('');
  });

  it('flow ids, events and inputs', async () => {
    const requests: string[] = [];
    const client = createFlowClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async (input) => {
        requests.push(String(input));
        return new Response(null, { status: 500 });
      },
    });
    for (const flowId of ['', '../../admin', 'a/b', 'a?b', 'a b', 'x'.repeat(65), 42, null]) {
      expect(await failure(client.get(flowId as string))).toMatchObject({ code: 'invalid_input', field: 'flowId' });
      expect(await failure(client.send(flowId as string, { type: 'cancel' }))).toMatchObject({
        code: 'invalid_input',
        field: 'flowId',
      });
      expect(() => client.observe(flowId as string)).toThrow(
        expect.objectContaining({ code: 'invalid_input', field: 'flowId' }),
      );
    }
    const id = 'A'.repeat(22);
    expect(await failure(client.send(id, null as never))).toMatchObject({ field: 'event' });
    expect(await failure(client.send(id, [] as never))).toMatchObject({ field: 'event' });
    expect(await failure(client.send(id, { code: '123456' } as never))).toMatchObject({ field: 'event.type' });
    expect(await failure(client.start('phone' as never))).toMatchObject({ field: 'input' });
    const circular: Record<string, unknown> = { kind: 'phone' };
    circular.self = circular;
    expect(await failure(client.start(circular as never))).toMatchObject({ code: 'invalid_input', field: 'input' });
    expect(await failure(client.start({ kind: 'phone', phoneNumber: 10n } as never))).toMatchObject({ field: 'input' });
    expect(requests).toEqual([]);
  });
});
