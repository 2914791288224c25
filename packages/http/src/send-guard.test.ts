import { afterEach, describe, expect, it } from 'vitest';
import { createVerikit, type FlowView } from '@verikit/core';
import { InvalidInputError, RateLimitedError, type Logger } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { createFlowHandler } from './create-flow-handler.js';
import { errorResponse } from './error-response.js';
import { httpTestSecret, postJson, setupHttp, type HttpSetup } from './http.fixtures.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

/** 300 consecutive valid numbers in one block of 1,000. */
const numbers = Array.from({ length: 300 }, (_, index) => `+${2348012340000 + index}`);

/** Starts a phone flow to each number over HTTP, all at once; the answers' statuses and bodies. */
async function startAll(
  url: string,
  phoneNumbers: readonly string[],
  headers: (index: number) => Record<string, string> = () => ({}),
) {
  return Promise.all(
    phoneNumbers.map(async (phoneNumber, index) => {
      const response = await postJson(`${url}/flows`, { kind: 'phone', phoneNumber }, headers(index));
      return {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as { error?: { code: string; retryAfterMs?: number; retryAt?: number } },
      };
    }),
  );
}

function captureLogger(): { logger: Logger; lines: Array<[string, string, unknown]> } {
  const lines: Array<[string, string, unknown]> = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push([level, message, fields]);
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

describe('the flow handler keys the send guard by client: 300 starts from one address', () => {
  it('are cut at the per-client limit: 429 with Retry-After and retryAfterMs, nothing sent or stored for the refused', async () => {
    setup = await setupHttp({}, { guard: { perClient: { points: 20 }, perPrefix: false, global: false } });
    const answers = await startAll(setup.url, numbers);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(20);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(280);
    for (const answer of refused) {
      expect(answer.body.error).toMatchObject({ code: 'rate_limited' });
      const retryAfter = Number(answer.retryAfter);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBe(Math.max(1, Math.ceil(answer.body.error!.retryAfterMs! / 1000)));
      expect(retryAfter).toBeLessThanOrEqual(600);
    }
    expect(setup.provider.calls.filter((call) => call.operation === 'phone.send')).toHaveLength(20);
    const stored = await setup.snapshot();
    const admitted = new Set(setup.provider.calls.map((call) => (call.input as { phoneNumber: string }).phoneNumber));
    for (const phoneNumber of numbers)
      if (!admitted.has(phoneNumber)) expect(stored).not.toContain(phoneNumber.slice(4));
  });

  it('with the defaults: 10 sent, 290 refused', async () => {
    setup = await setupHttp();
    const answers = await startAll(setup.url, numbers);
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(10);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(290);
    expect(setup.provider.calls).toHaveLength(10);
  });

  it('resends over HTTP count against the same client', async () => {
    setup = await setupHttp({}, { guard: { perClient: { points: 2 } }, policies: { resendCooldownMs: 0 } });
    const view = (await (
      await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber: numbers[0] })
    ).json()) as FlowView;
    expect((await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'resend' })).status).toBe(200);
    const refused = await postJson(`${setup.url}/flows/${view.id}/events`, { type: 'resend' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber: numbers[1] })).status).toBe(429);
    expect(setup.provider.calls).toHaveLength(2);
  });
});

describe('clientKey and trustProxy', () => {
  it('clientKey gets the peer address and decides the key: each signed-in user has their own count', async () => {
    const addresses: Array<string | undefined> = [];
    setup = await setupHttp(
      {
        clientKey: (request, address) => {
          addresses.push(address);
          return request.headers.get('x-user') ?? undefined;
        },
      },
      { guard: { perClient: { points: 3 }, perPrefix: false } },
    );
    const answers = await startAll(setup.url, numbers.slice(0, 12), (index) => ({ 'x-user': `user-${index % 2}` }));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(6);
    expect(addresses.every((address) => address === '127.0.0.1' || address === '::ffff:127.0.0.1')).toBe(true);
  });

  it('clientKey returning undefined leaves the per-client limit out', async () => {
    setup = await setupHttp({ clientKey: () => undefined }, { guard: { perClient: { points: 1 }, perPrefix: false } });
    expect((await startAll(setup.url, numbers.slice(0, 5))).every((answer) => answer.status === 201)).toBe(true);
  });

  it('X-Forwarded-For is ignored unless trustProxy; with it, its last entry is the client', async () => {
    const forwarded = (index: number) => ({ 'x-forwarded-for': `198.51.100.9, 203.0.113.${index % 3}` });
    setup = await setupHttp({}, { guard: { perClient: { points: 2 }, perPrefix: false } });
    expect(
      (await startAll(setup.url, numbers.slice(0, 9), forwarded)).filter((answer) => answer.status === 201),
    ).toHaveLength(2);
    await setup.close();
    setup = await setupHttp({ trustProxy: true }, { guard: { perClient: { points: 2 }, perPrefix: false } });
    expect(
      (await startAll(setup.url, numbers.slice(0, 9), forwarded)).filter((answer) => answer.status === 201),
    ).toHaveLength(6);
  });

  it('called with no bindings and no clientKey, the per-client limit is skipped (never one shared count), and a warning says so once', async () => {
    const { logger, lines } = captureLogger();
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: httpTestSecret,
      logger,
      guard: { perClient: { points: 2 }, perPrefix: false },
    });
    const handler = createFlowHandler({ verikit, logger });
    const statuses: number[] = [];
    for (const phoneNumber of numbers.slice(0, 4)) {
      const request = new Request('http://localhost/flows', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ kind: 'phone', phoneNumber }),
      });
      statuses.push((await handler(request)).status);
    }
    expect(statuses).toEqual([201, 201, 201, 201]);
    expect(lines.filter(([, message]) => message === 'verikit.guard.no-client-address')).toHaveLength(1);
    expect(lines.filter(([, message]) => message === 'verikit.guard.refused')).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain('8012340');
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['clientKey that is a string', { clientKey: 'x-forwarded-for' }, 'clientKey'],
    ['clientKey that is an object', { clientKey: { header: 'x-user' } }, 'clientKey'],
    ['trustProxy that is a string', { trustProxy: 'yes' }, 'trustProxy'],
    ['trustProxy that is a number', { trustProxy: 1 }, 'trustProxy'],
  ])('%s is an InvalidInputError naming it', (_label, options, field) => {
    const verikit = createVerikit({ provider: createTestProviderV1(), secret: httpTestSecret });
    let error: unknown;
    try {
      createFlowHandler({ verikit, ...options } as never);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect((error as InvalidInputError).field).toBe(field);
  });

  it('a clientKey that returns something else is a 500 reported to onError: nothing sent or stored', async () => {
    const reported: unknown[] = [];
    setup = await setupHttp({ clientKey: () => 42 as never, onError: (error) => reported.push(error) });
    const before = await setup.snapshot();
    const response = await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber: numbers[0] });
    expect(response.status).toBe(500);
    expect(reported).toHaveLength(1);
    expect(await setup.snapshot()).toBe(before);
    expect(setup.provider.calls).toHaveLength(0);
  });
});

describe('Retry-After of a RateLimitedError', () => {
  it('is its retryAfterMs in seconds rounded up, whatever clock retryAt is on', () => {
    const error = new RateLimitedError('slow down', Date.UTC(2026, 0, 1), { retryAfterMs: 90_500 });
    const response = errorResponse(error, Date.now());
    expect(response.headers.get('retry-after')).toBe('91');
  });
});
