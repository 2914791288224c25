import { CapabilityError, InvalidInputError, ProviderUnavailableError, requireCapabilityV1 } from '@verikit/provider';
import { callContext, failureOf, magicNumberOf } from '@verikit/testing';
import { serveFake, type FakeServer } from '@verikit/provider-utils/fake';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  africasTalkingBaseUrls,
  africasTalkingDeliveryStatuses,
  africasTalkingPaths,
  createAfricasTalkingProvider,
  createCallbackAllowList,
  parseDeliveryReport,
  parseUssdSession,
  readUssdAnswer,
  ussdAnswer,
  ussdResponse,
  ussdScreenLimit,
} from './index.js';
import {
  africasTalkingMagicNumbers,
  defaultAfricasTalkingFakeSettings,
  startAfricasTalkingFake,
  type AfricasTalkingFake,
  type AfricasTalkingMagicBehaviour,
} from './fake/index.js';

const apiKey = 'atsk_secretAfricasTalkingKey0123456789';
const context = callContext;
const magic = (wanted: AfricasTalkingMagicBehaviour) => magicNumberOf(africasTalkingMagicNumbers, wanted);

const failure = failureOf;

/** Every request the provider made, as the server received it. */
interface Captured {
  readonly url: string;
  readonly headers: Headers;
  readonly form: URLSearchParams;
}
const captured: Captured[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const request = new Request(input, init);
  captured.push({
    url: request.url,
    headers: request.headers,
    form: new URLSearchParams(await request.clone().text()),
  });
  return fetch(request);
};

let fake: AfricasTalkingFake;
beforeAll(async () => {
  fake = await startAfricasTalkingFake({ apiKey });
});
afterAll(() => fake.close());
afterEach(() => {
  captured.length = 0;
  vi.unstubAllEnvs();
});

const provider = (overrides: Record<string, unknown> = {}) =>
  createAfricasTalkingProvider({ ...fake.settings, fetch: recordingFetch, ...overrides });

describe('sms.send on the messaging API', () => {
  it('posts the documented form (username, to, message, from) with the apiKey header, and returns the messageId', async () => {
    const result = await provider({ senderId: 'Acme' }).sms!.send(
      { to: '+254711000123', message: 'Your code is 4821' },
      context(),
    );
    expect(result.messageId).toMatch(/^ATXid_[0-9a-f]{32}$/);
    const [request] = captured;
    expect(new URL(request!.url).pathname).toBe(africasTalkingPaths.messaging);
    expect(request!.headers.get('apikey')).toBe(apiKey);
    expect(request!.headers.get('content-type')).toMatch(/^application\/x-www-form-urlencoded/);
    expect(request!.headers.get('accept')).toBe('application/json');
    expect(Object.fromEntries(request!.form)).toEqual({
      username: defaultAfricasTalkingFakeSettings.username,
      to: '+254711000123',
      message: 'Your code is 4821',
      from: 'Acme',
    });
    expect(fake.lastMessage('+254711000123')).toBe('Your code is 4821');
  });

  it('leaves out from when neither the call nor the settings name a sender (Africa’s Talking then uses its own)', async () => {
    const sms = provider().sms!;
    expect(sms.requires).toBeUndefined();
    await sms.send({ to: '+254711000124', message: 'Hello' }, context());
    expect(captured[0]!.form.has('from')).toBe(false);
  });

  it('chooses the sandbox API for the username sandbox and the live one otherwise, unless a base URL is given', async () => {
    const urls: string[] = [];
    const refusing: typeof fetch = async (input, init) => {
      urls.push(new Request(input, init).url);
      return new Response('The supplied authentication is invalid', { status: 401 });
    };
    for (const username of ['sandbox', 'acme_live']) {
      await failure(
        createAfricasTalkingProvider({ username, apiKey, fetch: refusing }).sms!.send(
          { to: '+254711000125', message: 'x' },
          context(),
        ),
      );
    }
    expect(urls).toEqual([
      'https://api.sandbox.africastalking.com/version1/messaging',
      'https://api.africastalking.com/version1/messaging',
    ]);
    expect(africasTalkingBaseUrls).toEqual({
      live: 'https://api.africastalking.com',
      sandbox: 'https://api.sandbox.africastalking.com',
    });
  });

  it.each([
    ['invalid-number', 'provider_rejected', 'to', /403 InvalidPhoneNumber/],
    ['dnd', 'provider_rejected', undefined, /409 DoNotDisturbRejection/],
    [
      'insufficient-balance',
      'provider_rejected',
      undefined,
      /405 InsufficientBalance\): the account balance is too low/,
    ],
    ['blacklisted', 'provider_rejected', 'to', /406 UserInBlacklist/],
    ['gateway-error', 'provider_unavailable', undefined, /500 InternalServerError/],
  ] as const)('maps the recipient status of %s to its typed error', async (behaviour, code, field, message) => {
    const error = await failure(provider().sms!.send({ to: magic(behaviour), message: 'Hello' }, context()));
    expect(error.code).toBe(code);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('reads a request refused as a whole (no recipient, the reason in Message) as a rejection', async () => {
    const error = await failure(provider().sms!.send({ to: '+254711000126', message: 'Hello', from: '12' }, context()));
    // "12" fails our own sender check before any request: a sender the API would refuse costs nothing.
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(captured).toHaveLength(0);
    const empty: typeof fetch = async () =>
      Response.json({ SMSMessageData: { Message: 'InvalidSenderId', Recipients: [] } }, { status: 201 });
    const whole = await failure(
      provider({ fetch: empty }).sms!.send({ to: '+254711000126', message: 'Hi' }, context()),
    );
    expect(whole.code).toBe('provider_rejected');
    expect(whole.message).toMatch(/InvalidSenderId/);
  });

  it('maps HTTP 401 to an authentication error that never quotes the key, and 500 and HTML to their errors', async () => {
    const wrong = await failure(
      provider({ apiKey: 'atsk_wrongKey000000000000' }).sms!.send({ to: '+254711000127', message: 'x' }, context()),
    );
    expect(wrong.code).toBe('provider_authentication');
    expect(wrong.message).not.toContain('atsk_');
    const down = await failure(provider().sms!.send({ to: magic('server-error'), message: 'x' }, context()));
    expect(ProviderUnavailableError.isInstance(down) && down.requestSent).toBe(true);
    const html = await failure(provider().sms!.send({ to: magic('not-json'), message: 'x' }, context()));
    expect(html.code).toBe('provider_protocol');
  });

  it('refuses malformed input before any request, naming the field', async () => {
    const error = await failure(provider().sms!.send({ to: '0711000128', message: 'x' }, context()));
    expect(InvalidInputError.isInstance(error) && error.field).toBe('to');
    expect(captured).toHaveLength(0);
  });

  it('declares SMS only: phone, USSD OTP, identity and WhatsApp are capability errors', () => {
    const sms = provider();
    for (const need of [
      { capability: 'phone', channel: 'sms' },
      { capability: 'ussd' },
      { capability: 'identity', idType: 'nin' },
      { capability: 'whatsapp' },
    ] as const) {
      expect(() => requireCapabilityV1(sms, need)).toThrow(CapabilityError);
    }
  });
});

describe('settings from AFRICASTALKING_* variables', () => {
  it('reads username, key, sender and base URL from the environment at each call', async () => {
    vi.stubEnv('AFRICASTALKING_USERNAME', 'sandbox');
    vi.stubEnv('AFRICASTALKING_API_KEY', apiKey);
    vi.stubEnv('AFRICASTALKING_SENDER_ID', 'Verikit');
    vi.stubEnv('AFRICASTALKING_BASE_URL', fake.settings.baseUrl);
    await createAfricasTalkingProvider({ fetch: recordingFetch }).sms!.send(
      { to: '+254711000129', message: 'From the environment' },
      context(),
    );
    expect(captured[0]!.form.get('from')).toBe('Verikit');
  });

  it('names a missing or malformed setting, never its value', () => {
    vi.stubEnv('AFRICASTALKING_USERNAME', '');
    vi.stubEnv('AFRICASTALKING_API_KEY', apiKey);
    expect(() => createAfricasTalkingProvider()).toThrow(/AFRICASTALKING_USERNAME/);
    vi.stubEnv('AFRICASTALKING_USERNAME', 'sandbox');
    vi.stubEnv('AFRICASTALKING_SENDER_ID', 'much too long sender');
    const error = (() => {
      try {
        createAfricasTalkingProvider();
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('expected a failure');
    })();
    expect(error.message).toMatch(/senderId|AFRICASTALKING_SENDER_ID/);
    expect(error.message).not.toContain('much too long');
  });
});

describe('the USSD session callback', () => {
  const body = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const session = {
    sessionId: 'ATUid_0123abcd',
    serviceCode: '*384*1234#',
    phoneNumber: '+254711000130',
    networkCode: '63902',
    text: '58',
  };

  it('parses the documented fields, the number in E.164', () => {
    expect(parseUssdSession(body(session))).toEqual(session);
  });

  it('reads a + sent unencoded (a space after form decoding) as +, and an empty networkCode as absent', () => {
    const raw = `sessionId=s1&serviceCode=*384*1234%23&phoneNumber=+254711000130&networkCode=&text=`;
    expect(parseUssdSession(raw)).toEqual({
      sessionId: 's1',
      serviceCode: '*384*1234#',
      phoneNumber: '+254711000130',
      text: '',
    });
  });

  it('takes whatever the user typed as text (., @, -, accents, past 182 characters): the app answers it', () => {
    for (const text of ['58.39', 'me@example', '58-39', 'été', `${'1'.repeat(150)}*${'9'.repeat(150)}`]) {
      const body = new URLSearchParams({
        sessionId: 'ATUid_1',
        serviceCode: '*384*1234#',
        phoneNumber: '+2348031234567',
        text,
      });
      expect(parseUssdSession(body.toString()).text).toBe(text);
    }
  });

  it('names every missing, repeated or malformed field', () => {
    const error = (() => {
      try {
        parseUssdSession(`phoneNumber=abc&text=58%01&sessionId=a&sessionId=b`);
      } catch (caught) {
        return caught as InvalidInputError;
      }
      throw new Error('expected a failure');
    })();
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(error.issues.map((issue) => issue.field).sort()).toEqual([
      'phoneNumber',
      'serviceCode',
      'sessionId',
      'text',
    ]);
  });

  it('answers CON or END as text/plain, and refuses a screen the network would cut', async () => {
    expect(ussdAnswer('CON', 'Enter the code')).toBe('CON Enter the code');
    const response = ussdResponse('END', 'Verified');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('END Verified');
    expect(() => ussdAnswer('END', 'x'.repeat(ussdScreenLimit))).not.toThrow();
    expect(() => ussdAnswer('END', 'x'.repeat(ussdScreenLimit + 1))).toThrow(InvalidInputError);
    expect(() => ussdAnswer('END', 'naïve')).toThrow(InvalidInputError);
    expect(readUssdAnswer('Verified')).toBeUndefined();
  });
});

describe('delivery reports', () => {
  it('parses a report and says whether it is final', () => {
    const report = parseDeliveryReport(
      'id=ATXid_1&status=Failed&phoneNumber=%2B254711000131&networkCode=63902&failureReason=UserInBlacklist&retryCount=2',
    );
    expect(report).toEqual({
      id: 'ATXid_1',
      status: 'Failed',
      final: true,
      phoneNumber: '+254711000131',
      networkCode: '63902',
      failureReason: 'UserInBlacklist',
      retryCount: 2,
    });
    const finals = africasTalkingDeliveryStatuses.filter(
      (status) => parseDeliveryReport(`id=ATXid_2&status=${status}&phoneNumber=%2B254711000131`).final,
    );
    expect(finals).toEqual(['Rejected', 'Success', 'Failed']);
    expect(() => parseDeliveryReport('id=ATXid_3&status=Delivered&phoneNumber=%2B254711000131')).toThrow(/status/);
  });
});

describe('the callback allow-list', () => {
  it('allows the listed addresses and ranges only, IPv4-mapped IPv6 included', () => {
    const list = createCallbackAllowList(['192.0.2.10', '198.51.100.0/24', '2001:db8::/48']);
    expect(list.allows('192.0.2.10')).toBe(true);
    expect(list.allows('::ffff:198.51.100.7')).toBe(true);
    expect(list.allows('2001:db8:0:1::5')).toBe(true);
    expect(list.allows('192.0.2.11')).toBe(false);
    expect(list.allows(undefined)).toBe(false);
    expect(list.allows('not an address')).toBe(false);
  });

  it('refuses an empty, malformed or overly wide list, so a mistake never opens the route', () => {
    expect(() => createCallbackAllowList([])).toThrow(InvalidInputError);
    expect(() => createCallbackAllowList(['0.0.0.0/0'])).toThrow(/no wider than \/16/);
    expect(() => createCallbackAllowList(['::/0'])).toThrow(/no wider than \/32/);
    expect(() => createCallbackAllowList(['africastalking.com'])).toThrow(InvalidInputError);
  });
});

describe('the fake dials the application like the network', () => {
  let app: FakeServer;
  const received: URLSearchParams[] = [];
  let answer: (form: URLSearchParams) => Response = () => ussdResponse('END', 'ok');
  beforeAll(async () => {
    app = await serveFake(async (request) => {
      const form = new URLSearchParams(await request.text());
      received.push(form);
      return answer(form);
    });
  });
  afterAll(() => app.close());
  afterEach(() => {
    received.length = 0;
    answer = () => ussdResponse('END', 'ok');
  });

  it('posts sessionId, serviceCode, phoneNumber, networkCode and text; what follows the service code is the first text', async () => {
    const dialler = await startAfricasTalkingFake({ callbackUrl: app.url });
    try {
      answer = (form) =>
        form.get('text') === '58' ? ussdResponse('CON', 'Enter 1 to confirm') : ussdResponse('END', 'Done');
      const first = await dialler.dial({ phoneNumber: '+254711000140', code: '*384*1234*58#' });
      expect(first).toMatchObject({ kind: 'CON', screen: 'Enter 1 to confirm', outcome: 'answered' });
      const parsed = parseUssdSession(new URLSearchParams(received[0]).toString());
      expect(parsed).toEqual({
        sessionId: first.sessionId,
        serviceCode: '*384*1234#',
        phoneNumber: '+254711000140',
        networkCode: '63902',
        text: '58',
      });
      const second = await dialler.reply(first.sessionId, '1');
      expect(second).toMatchObject({ kind: 'END', screen: 'Done' });
      expect(received[1]!.get('text')).toBe('58*1');
      expect(received[1]!.get('sessionId')).toBe(first.sessionId);
      await expect(dialler.reply(first.sessionId, '2')).rejects.toThrow(/no open USSD session/);
      expect(dialler.outbox.filter((message) => message.channel === 'ussd').map((message) => message.text)).toEqual([
        'Enter 1 to confirm',
        'Done',
      ]);
    } finally {
      await dialler.close();
    }
  });

  // Issue 35, finding 10: Express and Flask send a string as text/html (Africa's Talking's own samples do), and the
  // session goes on at Africa's Talking; the fake ended it as "malformed".
  it('reads CON/END whatever the content type: a text/html CON keeps the session open', async () => {
    const dialler = await startAfricasTalkingFake({ callbackUrl: app.url });
    try {
      answer = (form) =>
        new Response(form.get('text') === '' ? 'CON Enter your reference' : 'END Thank you', {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        });
      const first = await dialler.dial({ phoneNumber: '+254711000143', code: '*384*1234#' });
      expect(first).toMatchObject({ outcome: 'answered', kind: 'CON', screen: 'Enter your reference' });
      expect(await dialler.reply(first.sessionId, '58.39')).toMatchObject({ kind: 'END', screen: 'Thank you' });
      expect(received.at(-1)!.get('text')).toBe('58.39');
    } finally {
      await dialler.close();
    }
  });

  it('ends the session as Africa’s Talking does when the answer is not CON/END text or not HTTP 200', async () => {
    const dialler = await startAfricasTalkingFake({ callbackUrl: app.url });
    try {
      answer = () => new Response('Verified', { headers: { 'content-type': 'text/plain' } });
      expect(await dialler.dial({ phoneNumber: '+254711000141', code: '*384*1234#' })).toMatchObject({
        outcome: 'malformed',
        kind: 'END',
      });
      answer = () => new Response('END nope', { status: 403, headers: { 'content-type': 'text/plain' } });
      expect(await dialler.dial({ phoneNumber: '+254711000141', code: '*384*1234#' })).toMatchObject({
        outcome: 'http-error',
        status: 403,
      });
      await expect(dialler.dial({ phoneNumber: '+254711000141', code: '*999#' })).rejects.toThrow(/code must be/);
    } finally {
      await dialler.close();
    }
  });

  it('reports a message that never reached the handset as Failed, which the provider reads as undelivered', async () => {
    const reporter = await startAfricasTalkingFake({ apiKey, deliveryReportUrl: app.url });
    try {
      const to = magic('undelivered');
      const { messageId } = await createAfricasTalkingProvider(reporter.settings).sms!.send(
        { to, message: 'Your code is 123456' },
        context(),
      );
      await vi.waitFor(() => expect(received).toHaveLength(1));
      expect(reporter.lastMessage(to)).toBeUndefined();
      const body = received[0]!.toString();
      expect(parseDeliveryReport(body)).toMatchObject({ id: messageId, status: 'Failed', final: true });
      expect(createAfricasTalkingProvider(reporter.settings).webhooks!.parse({ body, headers: {} })).toEqual({
        type: 'delivery',
        messageId,
        status: 'undelivered',
        reason: 'africastalking:DeliveryFailure',
      });
    } finally {
      await reporter.close();
    }
  });

  it('counts a report the URL refused in undeliveredReports, read live through the same object', async () => {
    answer = () => new Response('refused', { status: 500 });
    const reporter = await startAfricasTalkingFake({ apiKey, deliveryReportUrl: app.url });
    let closed = false;
    try {
      expect(reporter.undeliveredReports).toBe(0);
      await createAfricasTalkingProvider(reporter.settings).sms!.send(
        { to: '+254711000143', message: 'Hello' },
        context(),
      );
      await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 30_000 });
      // Closing waits for the report in flight to be answered and counted.
      await reporter.close();
      closed = true;
      expect(reporter.undeliveredReports).toBe(1);
    } finally {
      if (!closed) await reporter.close();
    }
  });

  it('reports each message taken to the delivery-report URL in the documented form', async () => {
    const reporter = await startAfricasTalkingFake({ apiKey, deliveryReportUrl: app.url });
    try {
      const { messageId } = await createAfricasTalkingProvider(reporter.settings).sms!.send(
        { to: '+254711000142', message: 'Hello' },
        context(),
      );
      await vi.waitFor(() => expect(received).toHaveLength(1));
      expect(parseDeliveryReport(received[0]!.toString())).toMatchObject({
        id: messageId,
        status: 'Success',
        phoneNumber: '+254711000142',
        final: true,
      });
      expect(reporter.undeliveredReports).toBe(0);
      // Issue 35, finding 10: the provider reads the report into the spec's delivery receipt for the send's id.
      const provider = createAfricasTalkingProvider(reporter.settings);
      expect(provider.webhooks!.parse({ body: received[0]!.toString(), headers: {} })).toEqual({
        type: 'delivery',
        messageId,
        status: 'delivered',
      });
    } finally {
      await reporter.close();
    }
  });
});
