import { InvalidInputError } from '@verikit/provider';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { magicPhoneNumbers } from './gateway-magic-numbers.js';
import type { GatewayFakeEvent } from './gateway-fake-options.js';
import { startGatewayFake, type GatewayFake } from './start-gateway-fake.js';

const secret = `whsec_${Buffer.from('a-sandbox-test-secret-of-32-bytes!').toString('base64')}`;

/** A real receiver: answers with the queued statuses, then 200, and records what it got. */
async function startReceiver(statuses: number[]) {
  const received: Array<{ body: string; headers: Record<string, string> }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({
        body,
        headers: Object.fromEntries(
          Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
        ),
      });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let sandbox: GatewayFake;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const events: GatewayFakeEvent[] = [];

const post = (
  path: string,
  body: unknown,
  headers: Record<string, string> = { apikey: sandbox.apiKey },
  base = sandbox.baseUrl,
) =>
  fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
/** USSD initiation, where the interface puts it: on the USSD base address, under /messagingserv. */
const initiate = (phoneNumber: string) =>
  post(
    '/messagingserv/gateway/api/v1/ussd/initiate-verification',
    { phoneNumber },
    { apikey: sandbox.apiKey },
    sandbox.ussdBaseUrl,
  );

beforeAll(async () => {
  receiver = await startReceiver([500, 503]);
  sandbox = await startGatewayFake({
    apiKey: 'sandbox-test-key',
    webhookUrl: receiver.url,
    webhookSecret: secret,
    webhookRetryDelaysMs: [5, 10, 20],
    slowMs: 10,
  });
  sandbox.onRequest((event) => events.push(event));
});
afterAll(async () => {
  await sandbox.close();
  await receiver.close();
});

describe('sandbox: the service endpoints', () => {
  it('serves every endpoint at the base address and path the interface gives it', async () => {
    const bodies: Array<[string, string, unknown, string]> = [
      [
        sandbox.ussdBaseUrl,
        '/messagingserv/gateway/api/v1/ussd/initiate-verification',
        { phoneNumber: '+2348031110001' },
        'Verification initiated',
      ],
      [
        sandbox.baseUrl,
        '/gateway/api/v1/send/sms',
        { from: 'Shop', to: '+2348031110001', message: 'hi' },
        'Message sent',
      ],
      [
        sandbox.baseUrl,
        '/gateway/api/v1/send/whatsapp',
        { phoneNumber: '+2348031110001', message: 'hi' },
        'Message sent',
      ],
      [sandbox.baseUrl, '/gateway/api/v1/verify/bvn', { number: '22222222222', otp: '123456' }, 'OTP sent'],
      [sandbox.baseUrl, '/gateway/api/v1/verify/nin', { number: '11111111111', otp: 654321 }, 'OTP sent'],
      [
        sandbox.baseUrl,
        '/gateway/api/v1/verify/phoneNumber',
        { from: 'Shop', phoneNumber: '+2348031110001' },
        'Request Succesful',
      ],
    ];
    for (const [base, path, body, message] of bodies) {
      const response = await post(path, body, { apikey: sandbox.apiKey }, base);
      expect([path, response.status]).toEqual([path, 200]);
      expect(await response.json()).toMatchObject({ success: true, message, code: 0 });
    }
  });
  // Issue 35, finding 12: one host served both base addresses, so USSD initiation sent to the main one passed.
  it('serves USSD initiation on the USSD base address only, and nothing else there', async () => {
    expect(sandbox.ussdBaseUrl).not.toBe(sandbox.baseUrl);
    const misplaced: Array<[string, string, unknown]> = [
      [sandbox.baseUrl, '/messagingserv/gateway/api/v1/ussd/initiate-verification', { phoneNumber: '+2348031110001' }],
      [sandbox.baseUrl, '/gateway/api/v1/ussd/initiate-verification', { phoneNumber: '+2348031110001' }],
      [sandbox.ussdBaseUrl, '/gateway/api/v1/ussd/initiate-verification', { phoneNumber: '+2348031110001' }],
      [sandbox.ussdBaseUrl, '/gateway/api/v1/send/sms', { from: 'Shop', to: '+2348031110001', message: 'hi' }],
      [
        sandbox.ussdBaseUrl,
        '/messagingserv/gateway/api/v1/send/sms',
        { from: 'Shop', to: '+2348031110001', message: 'hi' },
      ],
      [sandbox.ussdBaseUrl, '/__sandbox/outbox', {}],
    ];
    const sessions = sandbox.outbox.length;
    for (const [base, path, body] of misplaced) {
      const response = await post(path, body, { apikey: sandbox.apiKey }, base);
      expect([base === sandbox.baseUrl ? 'main' : 'ussd', path, response.status]).toEqual([
        base === sandbox.baseUrl ? 'main' : 'ussd',
        path,
        404,
      ]);
    }
    expect(sandbox.outbox.length).toBe(sessions);
    // The handler without the loopback (fake.fetch) routes by address the same way.
    const direct = (base: string) =>
      sandbox.fetch(
        new Request(`${base}/messagingserv/gateway/api/v1/ussd/initiate-verification`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', apikey: sandbox.apiKey },
          body: JSON.stringify({ phoneNumber: '+2348031110009' }),
        }),
      );
    expect([(await direct(sandbox.ussdBaseUrl)).status, (await direct(sandbox.baseUrl)).status]).toEqual([200, 404]);
  });
  it('answers a phone check: wrong code refused, attempts counted, right code accepted once', async () => {
    const send = (await (
      await post('/gateway/api/v1/verify/phoneNumber', { from: 'Shop', phoneNumber: '+2348031110002' })
    ).json()) as {
      data: { requestId: string };
    };
    const code = sandbox.lastCode('+2348031110002')!;
    const check = async (value: string) =>
      (await post('/gateway/api/v1/verify/phoneCheck', { requestId: send.data.requestId, code: value })).json();
    expect(await check(code === '000000' ? '111111' : '000000')).toEqual({
      success: false,
      message: 'Error sending OTP',
      code: 0,
      data: null,
    });
    expect(await check(code)).toEqual({ success: true, message: 'Request Succesful', code: 0, data: null });
    expect(await check(code)).toMatchObject({ success: false });
    const unknown = await post('/gateway/api/v1/verify/phoneCheck', { requestId: 'nope', code: '123456' });
    expect(unknown.status).toBe(404);
  });
  it('locks a phone verification after maxAttempts wrong codes', async () => {
    const send = (await (
      await post('/gateway/api/v1/verify/phoneNumber', { from: 'Shop', phoneNumber: '+2348031110003' })
    ).json()) as {
      data: { requestId: string };
    };
    const code = sandbox.lastCode('+2348031110003')!;
    const wrong = code === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt += 1)
      await post('/gateway/api/v1/verify/phoneCheck', { requestId: send.data.requestId, code: wrong });
    expect(
      await (await post('/gateway/api/v1/verify/phoneCheck', { requestId: send.data.requestId, code })).json(),
    ).toMatchObject({ success: false });
  });
  // Issue 35, finding 12: the interface gives a missing or wrong apiKey no answer of its own (service-interface §7):
  // the failure envelope with the endpoint's failure message, nothing beside its four fields.
  it("refuses a missing or wrong apiKey with 401 and the endpoint's own failure envelope", async () => {
    const cases: Array<[string, string, unknown, string]> = [
      [
        sandbox.baseUrl,
        '/gateway/api/v1/send/sms',
        { from: 'Shop', to: '+2348031110004', message: 'hi' },
        'Error sending message',
      ],
      [sandbox.baseUrl, '/gateway/api/v1/verify/bvn', { number: '22222222222', otp: '123456' }, 'Error sending OTP'],
      [
        sandbox.ussdBaseUrl,
        '/messagingserv/gateway/api/v1/ussd/initiate-verification',
        { phoneNumber: '+2348031110004' },
        'Error initiating verification',
      ],
    ];
    for (const [base, path, body, message] of cases)
      for (const headers of [{}, { apikey: 'wrong' }] as Array<Record<string, string>>) {
        const response = await post(path, body, headers, base);
        expect([path, response.status]).toEqual([path, 401]);
        expect(await response.json()).toEqual({ success: false, message, code: 0, data: null });
      }
    const unauthorized = Object.entries(magicPhoneNumbers).find(([, behaviour]) => behaviour === 'unauthorized')![0];
    const revoked = await post('/gateway/api/v1/send/sms', { from: 'Shop', to: unauthorized, message: 'hi' });
    expect([revoked.status, await revoked.json()]).toEqual([
      401,
      { success: false, message: 'Error sending message', code: 0, data: null },
    ]);
  });
  it('validates bodies: 400 with the failure envelope alone; the fields are named to onRequest listeners', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/send/sms', { from: 'Shop', to: '08031110004', message: 'hi' }, 'to'],
      ['/send/sms', '{not json', 'body'],
      ['/send/whatsapp', [1, 2], 'body'],
      ['/verify/bvn', { number: '2222', otp: '123456' }, 'number'],
      ['/verify/nin', { number: '11111111111' }, 'otp'],
      ['/verify/phoneNumber', { phoneNumber: '+2348031110004' }, 'from'],
      ['/verify/phoneCheck', { requestId: 'x', code: 'abcd' }, 'code'],
    ];
    for (const [path, body, field] of cases) {
      events.length = 0;
      const response = await post(`/gateway/api/v1${path}`, body);
      expect([path, response.status, Object.keys((await response.json()) as object)]).toEqual([
        path,
        400,
        ['success', 'message', 'code', 'data'],
      ]);
      const told = events.find((event) => event.type === 'request');
      expect(told?.type === 'request' && told.errors?.[0]?.field).toBe(field);
    }
    const response = await post(
      '/messagingserv/gateway/api/v1/ussd/initiate-verification',
      { phoneNumber: '+234 803' },
      { apikey: sandbox.apiKey },
      sandbox.ussdBaseUrl,
    );
    expect([response.status, await response.json()]).toEqual([
      400,
      { success: false, message: 'Error initiating verification', code: 0, data: null },
    ]);
  });
  it('refuses an unknown BVN with the failure envelope and delivers nothing', async () => {
    const before = sandbox.outbox.length;
    expect(
      await (await post('/gateway/api/v1/verify/bvn', { number: '12345678901', otp: '123456' })).json(),
    ).toMatchObject({
      success: false,
      message: 'Error sending OTP',
    });
    expect(sandbox.outbox.length).toBe(before);
  });
  it('fails on purpose for the magic numbers', async () => {
    const byBehaviour = Object.fromEntries(
      Object.entries(magicPhoneNumbers).map(([number, behaviour]) => [behaviour, number]),
    );
    const sms = (to: string) => post('/gateway/api/v1/send/sms', { from: 'Shop', to, message: 'hi' });
    expect((await sms(byBehaviour['rejected']!)).status).toBe(200);
    expect((await (await sms(byBehaviour['rejected']!)).json()) as object).toMatchObject({
      success: false,
      message: 'Error sending message',
    });
    expect((await sms(byBehaviour['server-error']!)).status).toBe(500);
    expect((await sms(byBehaviour['unauthorized']!)).status).toBe(401);
    expect((await sms(byBehaviour['rate-limited']!)).status).toBe(429);
    const html = await sms(byBehaviour['not-json']!);
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await (await sms(byBehaviour['wrong-shape']!)).json()).toEqual({ ok: true });
    expect(await (await initiate(byBehaviour['no-data']!)).json()).toMatchObject({
      success: true,
      data: null,
    });
    expect(await (await sms(byBehaviour['slow']!)).json()).toMatchObject({ success: true });
  });
});

describe('sandbox: control endpoints', () => {
  it('reads the outbox, filtered, and the last message to a number', async () => {
    await post('/gateway/api/v1/send/whatsapp', { phoneNumber: '+2348031110005', message: 'outbox me' });
    const all = (await (await fetch(`${sandbox.url}/__sandbox/outbox?to=%2B2348031110005`)).json()) as {
      messages: Array<{ text: string }>;
    };
    expect(all.messages.map((message) => message.text)).toEqual(['outbox me']);
    expect(await (await fetch(`${sandbox.url}/__sandbox/outbox/last?to=%2B2348031110005`)).json()).toMatchObject({
      kind: 'whatsapp',
      text: 'outbox me',
    });
    expect((await fetch(`${sandbox.url}/__sandbox/outbox/last?to=%2B2348031119999`)).status).toBe(404);
  });
  it('sets latency, lists identities and the magic table', async () => {
    expect(
      await (
        await fetch(`${sandbox.url}/__sandbox/latency`, { method: 'POST', body: JSON.stringify({ ms: 1 }) })
      ).json(),
    ).toEqual({ ms: 1 });
    expect(
      (await fetch(`${sandbox.url}/__sandbox/latency`, { method: 'POST', body: JSON.stringify({ ms: -1 }) })).status,
    ).toBe(400);
    sandbox.setLatency(0);
    expect(
      ((await (await fetch(`${sandbox.url}/__sandbox/identities`)).json()) as { identities: unknown[] }).identities
        .length,
    ).toBeGreaterThan(1);
    expect(await (await fetch(`${sandbox.url}/__sandbox/magic`)).json()).toHaveProperty('phoneNumbers');
  });
  it('acts as the user dialling the USSD code: a signed webhook, retried with backoff on 5xx until a 2xx', async () => {
    const initiated = (await (await initiate('+2348031110006')).json()) as { data: { otp: string } };
    const response = await fetch(`${sandbox.url}/__sandbox/ussd/dial`, {
      method: 'POST',
      body: JSON.stringify({ phoneNumber: '+2348031110006', otp: initiated.data.otp, wait: true }),
    });
    const delivery = (await response.json()) as { id: string; attempts: number; delivered: boolean };
    expect(delivery).toMatchObject({ attempts: 3, delivered: true });
    const attempts = receiver.received.filter((webhook) => webhook.headers['webhook-id'] === delivery.id);
    expect(attempts).toHaveLength(3);
    for (const attempt of attempts) {
      expect(new Webhook(secret).verify(attempt.body, attempt.headers)).toMatchObject({
        event: 'USSD_VERIFICATION',
        phoneNumber: '+2348031110006',
        status: 'success',
      });
    }
    const webhookEvents = events.filter((event) => event.type === 'webhook' && event.id === delivery.id);
    expect(webhookEvents.map((event) => event.type === 'webhook' && [event.status, event.willRetry])).toEqual([
      [500, true],
      [503, true],
      [200, false],
    ]);
  });
  it('gives up after the bounded number of attempts', async () => {
    receiver.received.length = 0;
    await initiate('+2348031110007');
    const failing = await startReceiver([500, 500, 500, 500, 500]);
    const strict = await startGatewayFake({
      webhookUrl: failing.url,
      webhookSecret: secret,
      webhookRetryDelaysMs: [1, 1],
    });
    try {
      const response = await fetch(`${strict.ussdBaseUrl}/messagingserv/gateway/api/v1/ussd/initiate-verification`, {
        method: 'POST',
        headers: { apikey: strict.apiKey },
        body: JSON.stringify({ phoneNumber: '+2348031110007' }),
      });
      expect(response.status).toBe(200);
      const delivery = await strict.dialUssd('+2348031110007', { status: 'failed' });
      expect(delivery).toMatchObject({ attempts: 3, delivered: false, lastStatus: 500 });
      expect(failing.received).toHaveLength(3);
    } finally {
      await strict.close();
      await failing.close();
    }
  });
  it('refuses a dial for a number without a pending session, and malformed control input', async () => {
    expect(
      (
        await fetch(`${sandbox.url}/__sandbox/ussd/dial`, {
          method: 'POST',
          body: JSON.stringify({ phoneNumber: '+2348031119998' }),
        })
      ).status,
    ).toBe(404);
    expect(
      (await fetch(`${sandbox.url}/__sandbox/ussd/dial`, { method: 'POST', body: '{"phoneNumber":1}' })).status,
    ).toBe(400);
    await expect(sandbox.dialUssd('+2348031119998')).rejects.toThrow('no pending USSD session');
  });
  it('masks digit runs in every text of a request summary: a code in an SMS or WhatsApp message is never printed', async () => {
    const before = events.length;
    await post('/gateway/api/v1/send/sms', { from: 'Shop', to: '+2348031110008', message: 'Your code is 482913' });
    await post('/gateway/api/v1/send/whatsapp', { phoneNumber: '+2348031110008', message: 'Use 7351 to sign in' });
    const summaries = events
      .slice(before)
      .flatMap((event) => (event.type === 'request' && event.summary ? [event.summary] : []));
    expect(summaries).toHaveLength(2);
    const text = JSON.stringify(summaries);
    for (const hidden of ['482913', '7351', '2348031110008']) expect(text).not.toContain(hidden);
    expect(summaries[0]).toMatchObject({ from: 'Shop', message: 'Your code is ••••••' });
    expect(summaries[1]).toMatchObject({ message: 'Use •••• to sign in' });
  });
  it('reports requests to listeners with secrets masked', () => {
    const requests = events.filter((event) => event.type === 'request');
    expect(requests.length).toBeGreaterThan(10);
    const text = JSON.stringify(requests);
    expect(text).not.toContain('sandbox-test-key');
    expect(text).not.toContain('22222222222');
    expect(text).not.toContain('654321');
  });
});

describe('startGatewayFake: bad options', () => {
  for (const [field, options] of [
    ['port', { port: 70_000 }],
    ['webhookSecret', { webhookSecret: 'not-a-secret' }],
    ['webhookUrl', { webhookUrl: 'file:///etc/passwd' }],
    ['webhookUrl', { webhookUrl: 'https://user:not-a-secret@hooks.example.com/in' }],
    ['webhookUrl', { webhookUrl: 'https://not-a-secret@hooks.example.com/in' }],
    ['latencyMs', { latencyMs: -5 }],
    ['input', { apikey: 'x' }],
  ] as const) {
    it(`refuses ${field} ${JSON.stringify(options).replace('not-a-secret', '…')} with an InvalidInputError`, async () => {
      const error = await startGatewayFake(options as never).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect((error as InvalidInputError).field).toBe(field);
      expect(JSON.stringify(error)).not.toContain('not-a-secret');
      expect((error as Error).message).not.toContain('not-a-secret');
    });
  }
});
