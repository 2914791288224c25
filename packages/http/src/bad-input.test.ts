import { afterEach, expect, it } from 'vitest';
import type { FlowView } from '@verikit/core';
import {
  describeAdapters,
  errorOf,
  otherPhoneNumber,
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

const megabyte = 'x'.repeat(1024 * 1024);

async function expectError(response: Response, status: number, code: string, field?: string): Promise<void> {
  expect(response.status, `${code} ${field ?? ''}`).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const error = await errorOf(response);
  expect(error.code).toBe(code);
  if (field !== undefined) expect(error.field).toBe(field);
}

function post(url: string, body: RequestInit['body'], contentType: string | undefined): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    body,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
  });
}

/** A body sent chunked, with no Content-Length, so only counting the bytes read can stop it. */
function chunkedPost(url: string, chunks: number, chunk: string): Promise<Response> {
  const bytes = new TextEncoder().encode(chunk);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === chunks) return controller.close();
      sent += 1;
      controller.enqueue(bytes);
    },
  });
  return fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
    duplex: 'half',
  } as RequestInit);
}

/** Malformed bodies every JSON route refuses: status, code, field. */
const malformedBodies: ReadonlyArray<[string, RequestInit['body'], string | undefined, number, string, string]> = [
  ['malformed JSON', '{"kind": "phone",', 'application/json', 400, 'invalid_input', 'body'],
  ['an empty body', '', 'application/json', 400, 'invalid_input', 'body'],
  ['not UTF-8', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), 'application/json', 400, 'invalid_input', 'body'],
  ['text/plain', '{"kind":"phone"}', 'text/plain', 415, 'unsupported_media_type', 'content-type'],
  ['form data', 'kind=phone', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type', 'content-type'],
  ['no content type', new Uint8Array([0x7b, 0x7d]), undefined, 415, 'unsupported_media_type', 'content-type'],
  ['a non-UTF-8 charset', '{}', 'application/json; charset=latin1', 415, 'unsupported_media_type', 'content-type'],
  [
    'a megabyte',
    JSON.stringify({ kind: 'phone', phoneNumber: megabyte }),
    'application/json',
    413,
    'payload_too_large',
    'body',
  ],
];

describeAdapters(
  'bad input to every route: the right status, a typed error naming the field, and nothing changed',
  () => {
    it('POST /flows with malformed bodies', async () => {
      setup = await setupHttp();
      for (const [, body, contentType, status, code, field] of malformedBodies) {
        await expectError(await post(`${setup.url}/flows`, body, contentType), status, code, field);
      }
      await expectError(
        await chunkedPost(`${setup.url}/flows`, 64, 'x'.repeat(16 * 1024)),
        413,
        'payload_too_large',
        'body',
      );
      expect(await setup.snapshot()).toBe('[]');
      expect(setup.provider.calls).toHaveLength(0);
    });

    it('POST /flows with invalid fields: unknown kinds, bad phone numbers, 10- and 12-digit BVNs, unknown fields', async () => {
      setup = await setupHttp();
      const cases: ReadonlyArray<[unknown, string]> = [
        [{ kind: 'email', phoneNumber }, 'kind'],
        [{ phoneNumber }, 'kind'],
        [{ kind: 'phone', phoneNumber: '+234 201 234 5678' }, 'phoneNumber'],
        [{ kind: 'phone', phoneNumber: '+234801234567a' }, 'phoneNumber'],
        [{ kind: 'phone', phoneNumber: '2348012345678' }, 'phoneNumber'],
        [{ kind: 'ussd', phoneNumber: 2348012345678 }, 'phoneNumber'],
        [{ kind: 'ussd' }, 'phoneNumber'],
        [{ kind: 'phone', phoneNumber, channel: 'fax' }, 'channel'],
        [{ kind: 'identity', idType: 'bvn', number: '2221234567' }, 'number'],
        [{ kind: 'identity', idType: 'bvn', number: '222123456789' }, 'number'],
        [{ kind: 'identity', idType: 'bvn', number: '2221234567a' }, 'number'],
        [{ kind: 'identity', idType: 'passport', number: '22212345678' }, 'idType'],
        [{ kind: 'phone', phoneNumber, isAdmin: true }, 'input'],
        [null, 'input'],
        [[{ kind: 'phone', phoneNumber }], 'input'],
        ['phone', 'input'],
      ];
      for (const [body, field] of cases) {
        const response = await postJson(`${setup.url}/flows`, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        const error = await errorOf(response);
        expect(error.code).toBe('invalid_input');
        expect(error.field, JSON.stringify(body)).toBe(field);
        expect(error.issues?.[0]?.field).toBe(field);
        expect(JSON.stringify(error)).not.toMatch(/2221234567|8012345678/);
      }
      expect(await setup.snapshot()).toBe('[]');
      expect(setup.provider.calls).toHaveLength(0);
    });

    it('flow ids: a malformed id is a 400 naming flowId, an unknown well-formed id a 404', async () => {
      setup = await setupHttp();
      const unknown = 'AAAAAAAAAAAAAAAAAAAAAA';
      for (const id of [
        'abc',
        'x'.repeat(65),
        '%E0%A4%A',
        'a%20b%20cdefghijklmnopqrstuvwxyz',
        '..%2F..%2Fetc%2Fpasswd0000000000',
      ]) {
        await expectError(await fetch(`${setup.url}/flows/${id}`), 400, 'invalid_input', 'flowId');
        await expectError(await fetch(`${setup.url}/flows/${id}/stream`), 400, 'invalid_input', 'flowId');
        await expectError(
          await postJson(`${setup.url}/flows/${id}/events`, { type: 'cancel' }),
          400,
          'invalid_input',
          'flowId',
        );
      }
      await expectError(await fetch(`${setup.url}/flows/${unknown}`), 404, 'flow_not_found', 'flowId');
      await expectError(await fetch(`${setup.url}/flows/${unknown}/stream`), 404, 'flow_not_found', 'flowId');
      await expectError(
        await postJson(`${setup.url}/flows/${unknown}/events`, { type: 'cancel' }),
        404,
        'flow_not_found',
        'flowId',
      );
      expect(setup.bus.active).toBe(0);
      expect(await setup.snapshot()).toBe('[]');
    });

    it('POST /flows/:id/events with malformed bodies and invalid events: non-digit codes, unknown types', async () => {
      setup = await setupHttp();
      const view = (await (await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber })).json()) as FlowView;
      const before = await setup.snapshot();
      const url = `${setup.url}/flows/${view.id}/events`;
      for (const [, body, contentType, status, code, field] of malformedBodies) {
        await expectError(await post(url, body, contentType), status, code, field);
      }
      await expectError(await chunkedPost(url, 64, 'x'.repeat(16 * 1024)), 413, 'payload_too_large', 'body');
      const cases: ReadonlyArray<[unknown, string]> = [
        [{ type: 'submit-code', code: 'abc123' }, 'event.code'],
        [{ type: 'submit-code', code: '12 34 56' }, 'event.code'],
        [{ type: 'submit-code', code: 123456 }, 'event.code'],
        [{ type: 'submit-code', code: '12' }, 'event.code'],
        [{ type: 'submit-code', code: megabyte.slice(0, 10_000) }, 'event.code'],
        [{ type: 'submit-code' }, 'event.code'],
        [{ type: 'verify' }, 'event.type'],
        [{ type: 'cancel', reason: 'x' }, 'event'],
        [{}, 'event.type'],
      ];
      for (const [body, field] of cases) {
        const response = await postJson(url, body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect((await errorOf(response)).field, JSON.stringify(body)).toBe(field);
      }
      expect(await setup.snapshot()).toBe(before);
      expect(setup.provider.callsOf('phone.check')).toHaveLength(0);
    });

    it('events not allowed now are a 409 listing what is allowed, and change nothing', async () => {
      setup = await setupHttp();
      const view = (await (await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber })).json()) as FlowView;
      const url = `${setup.url}/flows/${view.id}/events`;
      const before = await setup.snapshot();
      const resend = await postJson(url, { type: 'resend' });
      expect(resend.status).toBe(409);
      const cooldown = await errorOf(resend);
      expect(cooldown).toMatchObject({ code: 'event_not_allowed', field: 'event.type', allowed: view.allowed });
      expect(await setup.snapshot()).toBe(before);

      const submitted = await postJson(url, { type: 'submit-code', code: setup.provider.lastCode(phoneNumber) });
      expect(await submitted.json()).toMatchObject({ status: 'verified' });
      const verified = await setup.snapshot();
      for (const event of [{ type: 'submit-code', code: '123456' }, { type: 'resend' }]) {
        const response = await postJson(url, event);
        expect(response.status, `${event.type}: ${await response.clone().text()}`).toBe(409);
        expect(await errorOf(response)).toMatchObject({ code: 'event_not_allowed', allowed: [] });
      }
      expect(await setup.snapshot()).toBe(verified);
    });

    it('cancel on a verified flow is a 409 and the flow stays verified', async () => {
      setup = await setupHttp();
      const view = (await (await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber })).json()) as FlowView;
      const url = `${setup.url}/flows/${view.id}/events`;
      await postJson(url, { type: 'submit-code', code: setup.provider.lastCode(phoneNumber) });
      const verified = await setup.snapshot();
      const response = await postJson(url, { type: 'cancel' });
      expect(response.status, await response.clone().text()).toBe(409);
      expect(await errorOf(response)).toMatchObject({ code: 'event_not_allowed', allowed: [] });
      expect(await setup.snapshot()).toBe(verified);
    });

    it('a rate-limited start is a 429 with Retry-After and retryAt', async () => {
      setup = await setupHttp({}, { policies: { maxSendsPerHour: 1 } });
      expect((await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber })).status).toBe(201);
      const before = await setup.snapshot();
      const response = await postJson(`${setup.url}/flows`, { kind: 'ussd', phoneNumber });
      expect(response.status).toBe(429);
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(3600);
      const error = await errorOf(response);
      expect(error).toMatchObject({ code: 'rate_limited', isRetryable: true });
      expect(typeof (error as { retryAt?: unknown }).retryAt).toBe('number');
      expect(await setup.snapshot()).toBe(before);
      expect((await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber: otherPhoneNumber })).status).toBe(201);
    });

    it('the connection stays usable after a refused megabyte', async () => {
      setup = await setupHttp();
      await expectError(
        await post(`${setup.url}/flows`, megabyte, 'application/json'),
        413,
        'payload_too_large',
        'body',
      );
      expect((await postJson(`${setup.url}/flows`, { kind: 'phone', phoneNumber })).status).toBe(201);
    });
  },
);
