import {
  CapabilityError,
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type Logger,
  type ProviderCallContextV1,
  type ProviderV1,
} from '@verikit/provider';
import { createGatewayProvider, type GatewayProviderSettings } from './index.js';
import { expectNoSecrets, failureOf } from '@verikit/testing';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { magicIdentityNumberFor as magicId, magicPhoneNumberFor as magic } from './gateway.fixtures.js';
import { startScriptedServer } from './scripted-server.fixtures.js';
import { startGatewayFake, type GatewayFake } from './fake/start-gateway-fake.js';

const apiKey = 'sk_live_5ecret-Gateway-Key-0123456789';
const bvn = '22222222222';
const nin = '11111111111';

interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}
const logLines: LogLine[] = [];
const capturingLogger: Logger = {
  debug: (message, fields) => logLines.push({ level: 'debug', message, fields }),
  info: (message, fields) => logLines.push({ level: 'info', message, fields }),
  warn: (message, fields) => logLines.push({ level: 'warn', message, fields }),
  error: (message, fields) => logLines.push({ level: 'error', message, fields }),
};

let sequence = 0;
function context(signal: AbortSignal = new AbortController().signal): ProviderCallContextV1 {
  return { signal, idempotencyKey: `flow:effect:${++sequence}`, logger: capturingLogger };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const errors: unknown[] = [];
const secrets = [apiKey, bvn, nin];

let sandbox: GatewayFake;
let provider: ProviderV1;
let fetchCalls = 0;
const countingFetch: typeof fetch = (input, init) => {
  fetchCalls += 1;
  return fetch(input, init);
};
// The hooks keep the requests; the test reads their headers after the calls, as a leaky logger would.
const seenByHooks: Request[] = [];

function gateway(overrides: Partial<GatewayProviderSettings> = {}): ProviderV1 {
  return createGatewayProvider({
    apiKey,
    baseUrl: sandbox.baseUrl,
    ussdBaseUrl: sandbox.ussdBaseUrl,
    defaultSender: 'Verikit',
    timeout: 2000,
    ...overrides,
  });
}

beforeAll(async () => {
  sandbox = await startGatewayFake({ apiKey, slowMs: 400 });
  provider = gateway({
    fetch: countingFetch,
    hooks: {
      beforeRequest: [(request) => void seenByHooks.push(request)],
      afterResponse: [async (_request, response) => void (await response.text())],
    },
  });
});
afterAll(async () => {
  await sandbox.close();
});

describe('gateway provider against the sandbox: each endpoint', () => {
  it('ussd.initiate returns the OTP and USSD code from data', async () => {
    const result = await provider.ussd!.initiate({ phoneNumber: '+2348031234501' }, context());
    expect(result.otp).toMatch(/^\d{4}$/);
    expect(result.ussdCode).toMatch(/^\*384\*\d{4}#$/);
    expect(result.reference).toBeTypeOf('string');
    expect(sandbox.lastCode('+2348031234501')).toBe(result.otp);
  });
  it('phone.send and phone.check: right code valid, wrong code not valid, unknown requestId rejected', async () => {
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031234502', channel: 'sms' }, context());
    const code = sandbox.lastCode('+2348031234502')!;
    expect(
      await provider.phone!.check({ requestId, code: code === '000000' ? '111111' : '000000' }, context()),
    ).toEqual({ valid: false });
    expect(await provider.phone!.check({ requestId, code }, context())).toEqual({ valid: true });
    const error = await failureOf(provider.phone!.check({ requestId: 'not-a-request', code }, context()));
    expect(ProviderRejectedError.isInstance(error)).toBe(true);
    expect((error as ProviderRejectedError).providerMessage).toBe('Error sending OTP');
    errors.push(error);
  });
  it('identity.sendOtp for a BVN and a NIN delivers the OTP to the registered phone', async () => {
    await provider.identity!.sendOtp({ idType: 'bvn', number: bvn, otp: '246810' }, context());
    expect(sandbox.lastCode('+2348030000101')).toBe('246810');
    await provider.identity!.sendOtp({ idType: 'nin', number: nin, otp: 135791 as unknown as string }, context());
    expect(sandbox.lastCode('+2348030000103')).toBe('135791');
  });
  it('sms.send and whatsapp.send land in the outbox', async () => {
    await provider.sms!.send({ from: 'Shop', to: '+2348031234503', message: 'Shipped' }, context());
    await provider.whatsapp!.send({ phoneNumber: '+2348031234504', message: 'Shipped too' }, context());
    expect(sandbox.outbox.at(-2)).toMatchObject({ kind: 'sms', to: '+2348031234503', from: 'Shop', text: 'Shipped' });
    expect(sandbox.outbox.at(-1)).toMatchObject({ kind: 'whatsapp', to: '+2348031234504', text: 'Shipped too' });
  });

  const calls: Array<[string, string, (phoneNumber: string) => Promise<unknown>]> = [
    [
      'ussd.initiate',
      'Error initiating verification',
      (phoneNumber) => provider.ussd!.initiate({ phoneNumber }, context()),
    ],
    [
      'phone.send',
      'Error sending OTP',
      (phoneNumber) => provider.phone!.send({ phoneNumber, channel: 'sms' }, context()),
    ],
    ['sms.send', 'Error sending message', (to) => provider.sms!.send({ from: 'Shop', to, message: 'hi' }, context())],
    [
      'whatsapp.send',
      'Error sending message',
      (phoneNumber) => provider.whatsapp!.send({ phoneNumber, message: 'hi' }, context()),
    ],
  ];
  for (const [operation, failureMessage, call] of calls) {
    it(`${operation}: a failure envelope is a ProviderRejectedError carrying the service message`, async () => {
      const error = await failureOf(call(magic('rejected')));
      expect(ProviderRejectedError.isInstance(error)).toBe(true);
      expect(error.isRetryable).toBe(false);
      expect((error as ProviderRejectedError).providerMessage).toBe(failureMessage);
      expect(error.message).toContain(operation);
      errors.push(error);
    });
  }
  for (const idType of ['bvn', 'nin'] as const) {
    it(`identity ${idType}: a failure envelope (unknown identity, magic number) is a ProviderRejectedError`, async () => {
      const unknown = await failureOf(
        provider.identity!.sendOtp({ idType, number: '12121212121', otp: '123456' }, context()),
      );
      expect((unknown as ProviderRejectedError).providerMessage).toBe('Error sending OTP');
      const magicFailure = await failureOf(
        provider.identity!.sendOtp({ idType, number: magicId('rejected'), otp: '123456' }, context()),
      );
      expect(ProviderRejectedError.isInstance(magicFailure)).toBe(true);
      errors.push(unknown, magicFailure);
    });
  }
});

describe('gateway provider: error mapping', () => {
  it('a wrong apiKey is a ProviderAuthenticationError that never shows the key', async () => {
    const wrong = gateway({ apiKey: 'sk_wrong_key_987654321' });
    const error = await failureOf(wrong.sms!.send({ from: 'Shop', to: '+2348031234505', message: 'hi' }, context()));
    expect(ProviderAuthenticationError.isInstance(error)).toBe(true);
    expectNoSecrets(error, ['sk_wrong_key_987654321']);
    errors.push(error);
  });
  it('401 from the service (revoked key) is an authentication error; 500 and 429 are retryable unavailable errors', async () => {
    const auth = await failureOf(
      provider.whatsapp!.send({ phoneNumber: magic('unauthorized'), message: 'hi' }, context()),
    );
    expect(ProviderAuthenticationError.isInstance(auth)).toBe(true);
    const server = await failureOf(
      provider.whatsapp!.send({ phoneNumber: magic('server-error'), message: 'hi' }, context()),
    );
    expect(ProviderUnavailableError.isInstance(server) && server.isRetryable).toBe(true);
    const limited = await failureOf(
      provider.whatsapp!.send({ phoneNumber: magic('rate-limited'), message: 'hi' }, context()),
    );
    expect(ProviderUnavailableError.isInstance(limited) && limited.message.includes('429')).toBe(true);
    errors.push(auth, server, limited);
  });
  it('a body that is not JSON is a ProviderProtocolError on field body', async () => {
    const error = await failureOf(provider.phone!.send({ phoneNumber: magic('not-json'), channel: 'sms' }, context()));
    expect(ProviderProtocolError.isInstance(error)).toBe(true);
    expect(error.field).toBe('body');
    expect(error.message).not.toContain('<');
    errors.push(error);
  });
  it('JSON of the wrong shape is a ProviderProtocolError naming success', async () => {
    const error = await failureOf(
      provider.sms!.send({ from: 'Shop', to: magic('wrong-shape'), message: 'hi' }, context()),
    );
    expect(ProviderProtocolError.isInstance(error)).toBe(true);
    expect(error.field).toBe('success');
    expect(error.message).toContain('success is missing');
  });
  it('a success without the fields it must carry names the missing field', async () => {
    const ussd = await failureOf(provider.ussd!.initiate({ phoneNumber: magic('no-data') }, context()));
    expect([ProviderProtocolError.isInstance(ussd), ussd.field]).toEqual([true, 'data.otp']);
    const phone = await failureOf(provider.phone!.send({ phoneNumber: magic('no-data'), channel: 'sms' }, context()));
    expect([ProviderProtocolError.isInstance(phone), phone.field]).toEqual([true, 'data.requestId']);
  });
  it('times out after the configured timeout (sandbox latency) and does not retry', async () => {
    const before = fetchCalls;
    const slow = gateway({ timeout: 50, fetch: countingFetch });
    const error = await failureOf(slow.sms!.send({ from: 'Shop', to: magic('slow'), message: 'hi' }, context()));
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(error.message).toContain('did not answer within 50 ms');
    expect(fetchCalls - before).toBe(1);
    errors.push(error);
  });
  it('times out on latency asked with the x-sandbox-latency header, through a user hook', async () => {
    const slow = gateway({
      timeout: 50,
      hooks: { beforeRequest: [(request) => request.headers.set('x-sandbox-latency', '300')] },
    });
    const error = await failureOf(slow.whatsapp!.send({ phoneNumber: '+2348031234506', message: 'hi' }, context()));
    expect(error.message).toContain('did not answer within 50 ms');
  });
  it("honours the engine's abort signal", async () => {
    const controller = new AbortController();
    const pending = provider.sms!.send({ from: 'Shop', to: magic('slow'), message: 'hi' }, context(controller.signal));
    setTimeout(() => controller.abort(), 20);
    const error = await failureOf(pending);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(error.message).toContain('aborted');
  });
  it('retries a refused connection once, then gives a ProviderUnavailableError', async () => {
    const port = await closedPort();
    let attempts = 0;
    const refused = createGatewayProvider({
      apiKey,
      baseUrl: `http://127.0.0.1:${port}`,
      ussdBaseUrl: `http://127.0.0.1:${port}`,
      connectionRetryDelayMs: 1,
      fetch: (input, init) => {
        attempts += 1;
        return fetch(input, init);
      },
    });
    const error = await failureOf(refused.sms!.send({ from: 'Shop', to: '+2348031234507', message: 'hi' }, context()));
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(error.message).toContain('connection was refused');
    expect((error.cause as Error).message).toBe('connection-refused (ECONNREFUSED)');
    expect(attempts).toBe(2);
    errors.push(error);
  });
  it('a 500 is not retried', async () => {
    const before = fetchCalls;
    await failureOf(provider.sms!.send({ from: 'Shop', to: magic('server-error'), message: 'hi' }, context()));
    expect(fetchCalls - before).toBe(1);
  });
});

describe('gateway provider: capabilities and input', () => {
  it('offers sms only, and refuses voice with a CapabilityError, unless a channel field is configured', async () => {
    expect(provider.phone!.channels).toEqual(['sms']);
    const error = await failureOf(provider.phone!.send({ phoneNumber: '+2348031234508', channel: 'voice' }, context()));
    expect(CapabilityError.isInstance(error) && error.field === 'channel').toBe(true);
    const voice = gateway({ mapping: { phone: { channelField: 'channel' } } });
    expect(voice.phone!.channels).toEqual(['sms', 'voice']);
    await voice.phone!.send({ phoneNumber: '+2348031234508', channel: 'voice' }, context());
    expect(sandbox.outbox.at(-1)).toMatchObject({ kind: 'phone-code', channel: 'voice', to: '+2348031234508' });
  });
  it('needs a sender for SMS and phone verification when no defaultSender is configured', async () => {
    const noSender = createGatewayProvider({ apiKey, baseUrl: sandbox.baseUrl, ussdBaseUrl: sandbox.ussdBaseUrl });
    const error = await failureOf(noSender.phone!.send({ phoneNumber: '+2348031234509', channel: 'sms' }, context()));
    expect(InvalidInputError.isInstance(error) && error.field === 'from').toBe(true);
    await expect(
      noSender.phone!.send({ phoneNumber: '+2348031234509', channel: 'sms', from: 'Shop' }, context()),
    ).resolves.toHaveProperty('requestId');
  });
  // The spec's own refusals (phone numbers, channels, codes, requestIds) are runWireContract's, in
  // gateway-hostile-answers.test.ts; these are the gateway's rules, and identity inputs whose errors must not echo.
  const bad: Array<[string, string, () => Promise<unknown>]> = [
    [
      'identity.sendOtp',
      'number',
      () => provider.identity!.sendOtp({ idType: 'bvn', number: '2222222222', otp: '123456' }, context()),
    ],
    [
      'identity.sendOtp',
      'otp',
      () => provider.identity!.sendOtp({ idType: 'nin', number: nin, otp: '12 34' }, context()),
    ],
    [
      'identity.sendOtp (an integer of 1 digit)',
      'otp',
      () => provider.identity!.sendOtp({ idType: 'bvn', number: bvn, otp: 7 as unknown as string }, context()),
    ],
    [
      'identity.sendOtp',
      'idType',
      () => provider.identity!.sendOtp({ idType: 'passport' as never, number: nin, otp: '1234' }, context()),
    ],
    [
      'sms.send',
      'message',
      () => provider.sms!.send({ from: 'Shop', to: '+2348031234510', message: '   ' }, context()),
    ],
    [
      'sms.send',
      'from',
      () =>
        provider.sms!.send({ from: 'A sender that is far too long', to: '+2348031234510', message: 'x' }, context()),
    ],
  ];
  for (const [operation, field, call] of bad) {
    it(`${operation}: bad ${field} is an InvalidInputError naming it, and nothing is sent`, async () => {
      const before = fetchCalls;
      const error = await failureOf(call());
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect(error.field).toBe(field);
      expect(fetchCalls).toBe(before);
      errors.push(error);
    });
  }
  it('a NIN pattern can be configured', async () => {
    const custom = gateway({ ninPattern: /^\d{10}$/g });
    const error = await failureOf(custom.identity!.sendOtp({ idType: 'nin', number: nin, otp: '123456' }, context()));
    expect(error.field).toBe('number');
    expectNoSecrets(error, [nin]);
  });
});

describe('createGatewayProvider: bad configuration', () => {
  const base = { apiKey, baseUrl: 'https://api.example.com', ussdBaseUrl: 'https://ussd.example.com' };
  const cases: Array<[string, unknown]> = [
    ['input', null],
    ['input', 'sk_live'],
    ['apiKey', { ...base, apiKey: undefined }],
    ['apiKey', { ...base, apiKey: '' }],
    ['apiKey', { ...base, apiKey: `${apiKey}\n` }],
    ['apiKey', { ...base, apiKey: 12345 }],
    ['baseUrl', { ...base, baseUrl: 'ftp://api.example.com' }],
    ['baseUrl', { ...base, baseUrl: `https://user:${apiKey}@api.example.com` }],
    ['ussdBaseUrl', { ...base, ussdBaseUrl: 'not a url' }],
    ['timeout', { ...base, timeout: -1 }],
    ['timeout', { ...base, timeout: Number.NaN }],
    ['fetch', { ...base, fetch: 'fetch' }],
    ['defaultSender', { ...base, defaultSender: 'A sender that is far too long' }],
    ['mapping.ussd.otp', { ...base, mapping: { ussd: { otp: 'data..otp' } } }],
    ['mapping.webhook.successValues', { ...base, mapping: { webhook: { successValues: [] } } }],
    ['hooks.beforeRequest.0', { ...base, hooks: { beforeRequest: ['log'] } }],
    ['connectionRetries', { ...base, connectionRetries: 100 }],
    ['input', { ...base, apikey: apiKey }],
  ];
  for (const [field, options] of cases) {
    it(`refuses ${field} with an InvalidInputError that names it and never echoes the key`, () => {
      let error: unknown;
      try {
        createGatewayProvider(options as GatewayProviderSettings);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect((error as InvalidInputError).field).toBe(field);
      expectNoSecrets(error, [apiKey]);
    });
  }
  it('exposes no apiKey on the provider object', () => {
    expectNoSecrets(createGatewayProvider(base), [apiKey]);
  });
});

describe('gateway provider: the wire format (a recording server)', () => {
  it('posts JSON with the apiKey header and exactly the listed field names, to the right base', async () => {
    const main = await startScriptedServer({ requestId: 'req-1', otp: '1234', ussdCode: '*1#' });
    const ussd = await startScriptedServer({ otp: 9876, ussd_code: '*384*55#', referenceId: 'ref-9' });
    try {
      const wire = createGatewayProvider({
        apiKey,
        baseUrl: `${main.url}/`,
        ussdBaseUrl: ussd.url,
        defaultSender: 'Verikit',
      });
      expect(await wire.ussd!.initiate({ phoneNumber: '+2348031234511' }, context())).toEqual({
        otp: '9876',
        ussdCode: '*384*55#',
        reference: 'ref-9',
      });
      await wire.sms!.send({ from: 'Shop', to: '+2348031234511', message: 'hi' }, context());
      await wire.identity!.sendOtp({ idType: 'bvn', number: bvn, otp: 123456 as unknown as string }, context());
      await wire.identity!.sendOtp({ idType: 'nin', number: nin, otp: '012345' }, context());
      await wire.phone!.send({ phoneNumber: '+2348031234511', channel: 'sms' }, context());
      await wire.phone!.check({ requestId: 'req-1', code: '4321' }, context());
      await wire.whatsapp!.send({ phoneNumber: '+2348031234511', message: 'hello' }, context());
      expect(ussd.requests.map((request) => [request.method, request.path, JSON.parse(request.body)])).toEqual([
        ['POST', '/messagingserv/gateway/api/v1/ussd/initiate-verification', { phoneNumber: '+2348031234511' }],
      ]);
      expect(main.requests.map((request) => [request.method, request.path, JSON.parse(request.body)])).toEqual([
        ['POST', '/gateway/api/v1/send/sms', { from: 'Shop', message: 'hi', to: '+2348031234511' }],
        ['POST', '/gateway/api/v1/verify/bvn', { number: bvn, otp: '123456' }],
        ['POST', '/gateway/api/v1/verify/nin', { number: nin, otp: '012345' }],
        ['POST', '/gateway/api/v1/verify/phoneNumber', { from: 'Verikit', phoneNumber: '+2348031234511' }],
        ['POST', '/gateway/api/v1/verify/phoneCheck', { code: '4321', requestId: 'req-1' }],
        ['POST', '/gateway/api/v1/send/whatsapp', { message: 'hello', phoneNumber: '+2348031234511' }],
      ]);
      for (const request of [...main.requests, ...ussd.requests]) {
        expect(request.headers['apikey']).toBe(apiKey);
        expect(request.headers['content-type']).toBe('application/json');
      }
    } finally {
      await main.close();
      await ussd.close();
    }
  });
  it('reads configured field paths, and data.valid on a check', async () => {
    const server = await startScriptedServer();
    try {
      const mapped = createGatewayProvider({
        apiKey,
        baseUrl: server.url,
        ussdBaseUrl: server.url,
        defaultSender: 'Verikit',
        mapping: {
          ussd: { otp: 'data.session.pin', ussdCode: 'data.session.dial' },
          phone: { requestId: 'data.ref', valid: 'data.ok' },
        },
      });
      server.answerJson({ success: true, message: 'ok', code: 0, data: { session: { pin: '5555', dial: '*5#' } } });
      expect(await mapped.ussd!.initiate({ phoneNumber: '+2348031234512' }, context())).toEqual({
        otp: '5555',
        ussdCode: '*5#',
      });
      server.answerJson({ success: true, message: 'ok', code: 0, data: { otp: '1', ussdCode: '*1#' } });
      const missing = await failureOf(mapped.ussd!.initiate({ phoneNumber: '+2348031234512' }, context()));
      expect(missing.field).toBe('data.session.pin');
      server.answerJson({ success: true, message: 'Request Succesful', code: 0, data: { ref: 77 } });
      expect(await mapped.phone!.send({ phoneNumber: '+2348031234512', channel: 'sms' }, context())).toEqual({
        requestId: '77',
      });
      server.answerJson({ success: true, message: 'Request Succesful', code: 0, data: { ok: false } });
      expect(await mapped.phone!.check({ requestId: '77', code: '1234' }, context())).toEqual({ valid: false });
      server.answerJson({ success: true, message: 'Request Succesful', code: 0, data: null });
      expect((await failureOf(mapped.phone!.check({ requestId: '77', code: '1234' }, context()))).field).toBe(
        'data.ok',
      );
    } finally {
      await server.close();
    }
  });
  it('masks digits and the key in a hostile service message, and does not follow redirects', async () => {
    const server = await startScriptedServer();
    try {
      const wire = createGatewayProvider({ apiKey, baseUrl: server.url, ussdBaseUrl: server.url });
      server.answerJson({
        success: false,
        message: `OTP 482913 for BVN ${bvn} refused, key ${apiKey}`,
        code: 0,
        data: null,
      });
      const hostile = await failureOf(wire.identity!.sendOtp({ idType: 'bvn', number: bvn, otp: '482913' }, context()));
      expectNoSecrets(hostile, [...secrets, '482913']);
      expect((hostile as ProviderRejectedError).providerMessage).toContain('refused');
      server.answerJson({ success: false, message: 'Error sending message', code: 0, data: null }, 404);
      expect(
        ProviderRejectedError.isInstance(
          await failureOf(wire.whatsapp!.send({ phoneNumber: '+2348031234513', message: 'x' }, context())),
        ),
      ).toBe(true);
      server.answer({ status: 302, headers: { location: 'https://elsewhere.example.com/steal' } });
      const redirect = await failureOf(wire.whatsapp!.send({ phoneNumber: '+2348031234513', message: 'x' }, context()));
      expect([ProviderProtocolError.isInstance(redirect), redirect.field]).toEqual([true, 'status']);
      expect(server.requests).toHaveLength(3);
      errors.push(hostile, redirect);
    } finally {
      await server.close();
    }
  });
});

describe('gateway provider: no secret anywhere', () => {
  it('no error thrown in these tests carries the apiKey, an identity number or a code', () => {
    expect(errors.length).toBeGreaterThan(15);
    for (const error of errors) expectNoSecrets(error, secrets);
  });
  it('logs every request and response through the call logger, without secrets or bodies', () => {
    expect(logLines.some((line) => line.message === 'verikit.gateway.request')).toBe(true);
    expect(logLines.some((line) => line.message === 'verikit.gateway.response')).toBe(true);
    expect(logLines.some((line) => line.message === 'verikit.gateway.failed')).toBe(true);
    expectNoSecrets(logLines, [...secrets, '246810', '135791']);
  });
  it('hooks see every request, never with the apiKey', () => {
    expect(seenByHooks.length).toBeGreaterThan(5);
    const seen = seenByHooks.map((request) => ({ url: request.url, headers: Object.fromEntries(request.headers) }));
    for (const each of seen)
      expect(Object.keys(each.headers).map((name) => name.toLowerCase())).not.toContain('apikey');
    expectNoSecrets(seen, [apiKey]);
  });
});
