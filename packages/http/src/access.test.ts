import { afterEach, describe, expect, it } from 'vitest';
import type { FlowView } from '@verikit/core';
import { createFlowHandler } from './create-flow-handler.js';
import type { FlowAction } from './flow-handler-options.js';
import { describeAdapters, errorOf, phoneNumber, postJson, setupHttp, type HttpSetup } from './http.fixtures.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const app = 'https://app.example.com';

function preflight(url: string, origin: string, headers = 'content-type'): Promise<Response> {
  return fetch(url, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers },
  });
}

describeAdapters('CORS', () => {
  it('answers a preflight from an allowed origin with the methods, the requested headers and max-age', async () => {
    setup = await setupHttp({ cors: { origin: [app, 'https://admin.example.com'], credentials: true, maxAge: 600 } });
    const response = await preflight(`${setup.url}/flows`, app, 'content-type, x-csrf-token');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(app);
    expect(response.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type, x-csrf-token');
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('vary')).toContain('Origin');
    const flow = await preflight(`${setup.url}/flows/AAAAAAAAAAAAAAAAAAAAAA`, app);
    expect(flow.headers.get('access-control-allow-methods')).toBe('GET, OPTIONS');
  });

  it('sends no CORS header to an origin not allowed, on preflights and on actual requests', async () => {
    setup = await setupHttp({ cors: { origin: (origin) => origin.endsWith('.example.com') } });
    for (const response of [
      await preflight(`${setup.url}/flows`, 'https://evil.example.net'),
      await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber }, { origin: 'https://evil.example.net' }),
    ]) {
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('vary')).toBe('Origin');
    }
    const allowed = await preflight(`${setup.url}/flows`, app);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(app);
  });

  it('puts CORS headers on successes, errors and streams, and exposes Retry-After', async () => {
    setup = await setupHttp({ cors: { origin: app, allowHeaders: ['content-type'] } });
    const started = await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber }, { origin: app });
    const view = (await started.json()) as FlowView;
    const failed = await postJson(`${setup.url}/flows`, { kind: 'fax' }, { origin: app });
    const controller = new AbortController();
    const stream = await fetch(`${setup.url}/flows/${view.id}/stream`, {
      headers: { origin: app },
      signal: controller.signal,
    });
    const missing = await fetch(`${setup.url}/nowhere`, { headers: { origin: app } });
    for (const response of [started, failed, stream, missing]) {
      expect(response.headers.get('access-control-allow-origin')).toBe(app);
      expect(response.headers.get('access-control-expose-headers')).toContain('retry-after');
    }
    expect(failed.status).toBe(400);
    controller.abort();
    const fixedHeaders = await preflight(`${setup.url}/flows`, app, 'x-anything');
    expect(fixedHeaders.headers.get('access-control-allow-headers')).toBe('content-type');
  });

  it("origin '*' answers '*', without credentials (with them it is refused when the handler is created)", async () => {
    setup = await setupHttp({ cors: { origin: '*' } });
    const response = await preflight(`${setup.url}/flows`, app);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('without cors options, no CORS header is sent and OPTIONS answers Allow only', async () => {
    setup = await setupHttp();
    const response = await preflight(`${setup.url}/flows`, app);
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('POST, OPTIONS');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describeAdapters('authorize', () => {
  it('is called before every action with the request, the flow (or the validated start request) and the action', async () => {
    const seen: Array<[string | null, string, FlowAction]> = [];
    setup = await setupHttp({
      authorize: (request, flow, action) => {
        seen.push([request.headers.get('authorization'), flow.kind, action]);
        return true;
      },
    });
    const headers = { authorization: 'Bearer user-1' };
    const view = (await (
      await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber }, headers)
    ).json()) as FlowView;
    await fetch(`${setup.url}/flows/${view.id}`, { headers });
    await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' }, headers);
    const stream = await fetch(`${setup.url}/flows/${view.id}/stream`, { headers });
    await stream.body?.cancel();
    expect(seen).toEqual([
      ['Bearer user-1', 'phone', 'start'],
      ['Bearer user-1', 'phone', 'read'],
      ['Bearer user-1', 'phone', 'send'],
      ['Bearer user-1', 'phone', 'stream'],
    ]);
  });

  it('gets the validated start request, so it can check whose phone number it is', async () => {
    let startRequest: unknown;
    setup = await setupHttp({
      authorize: (_request, flow, action) => {
        if (action === 'start') startRequest = flow;
        return true;
      },
    });
    await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber, channels: ['sms', 'voice'] });
    expect(startRequest).toEqual({ kind: 'phone', phoneNumber, channels: ['sms', 'voice'] });
  });

  it('a denial is a 403 on every route, and nothing changes, is sent or is subscribed', async () => {
    let allow = true;
    setup = await setupHttp({ authorize: async () => allow });
    const view = (await (await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber })).json()) as FlowView;
    const before = await setup.snapshot();
    const sends = setup.provider.calls.length;
    allow = false;
    for (const response of [
      await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber }),
      await fetch(`${setup.url}/flows/${view.id}`),
      await postJson(`${setup.url}/flows/${view.id}/events`, {
        type: 'submit-code',
        code: setup.provider.lastCode(phoneNumber),
      }),
      await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'cancel' }),
      await fetch(`${setup.url}/flows/${view.id}/stream`),
    ]) {
      expect(response.status).toBe(403);
      expect(await errorOf(response)).toMatchObject({ code: 'forbidden' });
    }
    expect(await setup.snapshot()).toBe(before);
    expect(setup.provider.calls).toHaveLength(sends);
    expect(setup.bus.active).toBe(0);
  });

  it('only true allows: a truthy non-boolean is a denial', async () => {
    setup = await setupHttp({ authorize: (() => 'yes') as never });
    expect((await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber })).status).toBe(403);
  });
});

describe('options', () => {
  it('are checked at once, with a typed error naming the option', async () => {
    setup = await setupHttp();
    const { verikit } = setup;
    const cases: ReadonlyArray<[unknown, string]> = [
      [{}, 'verikit'],
      [{ verikit: {} }, 'verikit'],
      [{ verikit, basePath: 'no spaces allowed/ x' }, 'basePath'],
      [{ verikit, webhookPath: 'hooks' }, 'webhookPath'],
      [{ verikit, heartbeatMs: 0 }, 'heartbeatMs'],
      [{ verikit, maxBodyBytes: 10 }, 'maxBodyBytes'],
      [{ verikit, maxWebhookBodyBytes: 0 }, 'maxWebhookBodyBytes'],
      [{ verikit, cors: { origin: 42 } }, 'cors.origin'],
      [{ verikit, cors: { origin: '*', credentials: true } }, 'cors.credentials'],
      [{ verikit, authorize: 'yes' }, 'authorize'],
    ];
    for (const [options, field] of cases) {
      let caught: unknown;
      try {
        createFlowHandler(options as never);
      } catch (error) {
        caught = error;
      }
      expect(caught, field).toMatchObject({ code: 'invalid_input', field });
    }
  });
});
