import { afterEach, expect, it } from 'vitest';
import type { FlowView } from '@verikit/core';
import {
  describeAdapters,
  errorOf,
  frozenClock,
  phoneNumber,
  postJson,
  setupHttp,
  type HttpSetup,
} from './http.fixtures.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

async function start(body: unknown, basePath = ''): Promise<{ response: Response; view: FlowView }> {
  const response = await postJson(`${setup!.url}${basePath}/flows`, body);
  // The start answer is the view and the flow secret; the secret is never part of a view.
  const { flowSecret: _secret, ...view } = (await response.clone().json()) as FlowView & { flowSecret?: string };
  return { response, view: view as FlowView };
}

describeAdapters('the flow handler over real HTTP: every route', () => {
  it('POST /flows starts a phone flow: 201, the view, a Location header, and the code is sent', async () => {
    setup = await setupHttp();
    const { response, view } = await start({ kind: 'phone', phoneNumber });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('location')).toBe(`/flows/${view.id}`);
    expect(view).toMatchObject({ kind: 'phone', status: 'awaiting-code', done: false, phoneNumber: '+234******5678' });
    expect(view.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(setup.provider.callsOf('phone.send')).toHaveLength(1);
  });

  it('POST /flows starts USSD and identity flows; the view carries the USSD OTP and never the BVN', async () => {
    setup = await setupHttp();
    const ussd = await start({ kind: 'ussd', phoneNumber });
    expect(ussd.response.status).toBe(201);
    expect(ussd.view).toMatchObject({ kind: 'ussd', status: 'awaiting-dial', otp: '4321', ussdCode: '*384*1234#' });
    const identity = await start({ kind: 'identity', idType: 'bvn', number: '22212345678' });
    expect(identity.response.status).toBe(201);
    expect(identity.view).toMatchObject({
      kind: 'identity',
      idType: 'bvn',
      number: '*******5678',
      status: 'awaiting-code',
    });
    expect(JSON.stringify(identity.view)).not.toContain('22212345678');
  });

  it('GET /flows/:id reads the view', async () => {
    setup = await setupHttp({}, { clock: frozenClock() });
    const { view } = await start({ kind: 'phone', phoneNumber });
    const response = await fetch(`${setup.url}/flows/${view.id}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(view);
  });

  it('POST /flows/:id/events submits the code and the flow is verified', async () => {
    setup = await setupHttp();
    const { view } = await start({ kind: 'phone', phoneNumber });
    const response = await postJson(`${setup.url}/flows/${view.id}/events`, {
      type: 'submit-code',
      code: setup.provider.lastCode(phoneNumber),
    });
    expect(response.status).toBe(200);
    const verified = (await response.json()) as FlowView;
    expect(verified).toMatchObject({ id: view.id, status: 'verified', done: true });
    expect(verified.version).toBeGreaterThan(view.version);
    expect((await setup.verikit.get(view.id)).status).toBe('verified');
  });

  it('POST /flows/:id/events takes a wrong code, then cancel', async () => {
    setup = await setupHttp();
    const { view } = await start({ kind: 'phone', phoneNumber });
    const wrong = await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'submit-code', code: '000000' });
    expect(wrong.status).toBe(200);
    expect(await wrong.json()).toMatchObject({ status: 'awaiting-code', attemptsLeft: view.attemptsLeft! - 1 });
    const cancelled = await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' });
    expect(await cancelled.json()).toMatchObject({ status: 'cancelled', done: true });
  });

  it('serves every route below basePath, and nothing outside it', async () => {
    setup = await setupHttp({ basePath: '/api/verify/' });
    const { response, view } = await start({ kind: 'phone', phoneNumber }, '/api/verify');
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/api/verify/flows/${view.id}`);
    expect((await fetch(`${setup.url}/api/verify/flows/${view.id}`)).status).toBe(200);
    const outside = await fetch(`${setup.url}/flows/${view.id}`);
    expect(outside.status).toBe(404);
    expect((await errorOf(outside)).code).toBe('route_not_found');
  });

  it('answers 404 for unknown routes and 405, with Allow, for wrong methods', async () => {
    setup = await setupHttp();
    const { view } = await start({ kind: 'phone', phoneNumber });
    for (const path of ['/', '/flow', '/flows/x/y/z', `/flows/${view.id}/event`, '/webhook']) {
      const response = await fetch(`${setup.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await errorOf(response)).toMatchObject({ code: 'route_not_found' });
    }
    for (const [method, path, allow] of [
      ['GET', '/flows', 'POST'],
      ['DELETE', `/flows/${view.id}`, 'GET'],
      ['PUT', `/flows/${view.id}/events`, 'POST'],
      ['GET', `/flows/${view.id}/events`, 'POST'],
      ['POST', `/flows/${view.id}/stream`, 'GET'],
    ] as const) {
      const response = await fetch(`${setup.url}${path}`, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect(await errorOf(response)).toMatchObject({ code: 'method_not_allowed' });
    }
  });

  it('a typed 5xx (store down) is answered with its code and Retry-After and reported to onError; nothing secret leaks', async () => {
    const reported: unknown[] = [];
    setup = await setupHttp({ onError: (error) => reported.push(error) });
    const { view } = await start({ kind: 'phone', phoneNumber });
    setup.map.down = true;
    for (const response of [
      await fetch(`${setup.url}/flows/${view.id}`),
      await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'submit-code', code: '123456' }),
      await postJson(`${setup.url}/flows`, { kind: 'ussd', phoneNumber }),
    ]) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'store_unavailable', isRetryable: true } });
      expect(text).not.toMatch(/hunter2|ECONNREFUSED|stack|at /);
    }
    expect(reported).toHaveLength(3);
    setup.map.down = false;
    expect((await fetch(`${setup.url}/flows/${view.id}`)).status).toBe(200);
  });

  it('an unexpected error is a 500 with a generic message; the message and stack stay on the server', async () => {
    const reported: unknown[] = [];
    const failing = await setupHttp({
      onError: (error) => reported.push(error),
      authorize: () => {
        throw new Error('database password=hunter2 at line 3');
      },
    });
    try {
      const response = await postJson(`${failing.url}/flows`, { kind: 'phone', phoneNumber });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({
        error: {
          name: 'InternalError',
          code: 'internal_error',
          message: 'internal error',
          messageId: 'verikit.error.internal_error',
          isRetryable: true,
        },
      });
      expect(text).not.toContain('hunter2');
      expect(reported).toHaveLength(1);
      expect(await failing.snapshot()).toBe('[]');
    } finally {
      await failing.close();
    }
  });
});
