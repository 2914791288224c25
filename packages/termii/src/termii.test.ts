import {
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type ProviderV1,
} from '@verikit/provider';
import { expectNoSecrets, failureOf, leakWatch, magicNumberOf } from '@verikit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTermiiProvider } from './create-termii-provider.js';
import { startTermiiFake, termiiMagicNumbers, type TermiiFake, type TermiiMagicBehaviour } from './fake/index.js';
import type { TermiiProviderSettings } from './termii-settings.js';

const apiKey = 'TLsecretTermiiKey0123456789';
const watch = leakWatch();
const { context, failure } = watch;
const magic = (wanted: TermiiMagicBehaviour) => magicNumberOf(termiiMagicNumbers, wanted);
/** The last request on the wire, its JSON body read. */
const lastRequest = () => {
  const last = watch.sent.at(-1)!;
  return { url: last.url, body: JSON.parse(last.body) as Record<string, unknown> };
};

let fake: TermiiFake;

function termii(overrides: Partial<TermiiProviderSettings> = {}): ProviderV1 {
  return createTermiiProvider({
    apiKey,
    baseUrl: fake.baseUrl,
    senderId: 'Acme',
    fetch: watch.fetch,
    hooks: watch.hooks,
    ...overrides,
  });
}

beforeAll(async () => {
  fake = await startTermiiFake({ apiKey, slowMs: 300 });
});
afterAll(() => fake.close());
afterEach(() => vi.unstubAllEnvs());

describe('termii: the wire', () => {
  it('Send Token by the DND route, Termii number format, api_key in the body, pinId as requestId', async () => {
    const { requestId } = await termii().phone!.send({ phoneNumber: '+2348031110001', channel: 'sms' }, context());
    expect(lastRequest().url).toBe(`${fake.baseUrl}/api/sms/otp/send`);
    expect(lastRequest().body).toEqual({
      api_key: apiKey,
      message_type: 'NUMERIC',
      pin_type: 'NUMERIC',
      to: '2348031110001',
      from: 'Acme',
      channel: 'dnd',
      pin_attempts: 5,
      pin_time_to_live: 10,
      pin_length: 6,
      pin_placeholder: '< 1234 >',
      message_text: 'Your verification code is < 1234 >',
    });
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const code = fake.lastCode('+2348031110001')!;
    await expect(termii().phone!.check({ requestId, code }, context())).resolves.toEqual({ valid: true });
    expect(lastRequest().body).toEqual({ api_key: apiKey, pin_id: requestId, pin: code });
  });
  it('voice by Voice Token, attempts and time to live passed through', async () => {
    const provider = termii({ pinAttempts: 3, pinTimeToLiveMinutes: 2, pinLength: 4 });
    await provider.phone!.send({ phoneNumber: '+2348031110002', channel: 'voice' }, context());
    expect(lastRequest().body).toEqual({
      api_key: apiKey,
      phone_number: '2348031110002',
      pin_attempts: 3,
      pin_time_to_live: 2,
      pin_length: 4,
    });
    expect(fake.outbox.at(-1)).toMatchObject({ channel: 'voice', to: '+2348031110002' });
  });
  it('WhatsApp codes by Send WhatsApp Token from whatsappFrom; checked here, with no request and no code in the requestId', async () => {
    const provider = termii({ whatsappFrom: 'Acme Device', pinLength: 4 });
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031110012', channel: 'whatsapp' }, context());
    const code = fake.lastCode('+2348031110012')!;
    expect(code).toMatch(/^\d{4}$/);
    expect(lastRequest().url).toBe(`${fake.baseUrl}/api/sms/send`);
    expect(lastRequest().body).toEqual({
      api_key: apiKey,
      to: '2348031110012',
      from: 'Acme Device',
      sms: code,
      type: 'plain',
      channel: 'whatsapp_otp',
    });
    expect(requestId).not.toContain(code);
    expect(requestId).not.toContain('2348031110012');
    const before = watch.sent.length;
    const wrong = code === '0000' ? '1111' : '0000';
    await expect(provider.phone!.check({ requestId, code: wrong }, context())).resolves.toEqual({ valid: false });
    await expect(provider.phone!.check({ requestId, code }, context())).resolves.toEqual({ valid: true });
    const altered = requestId.replace(/\.(\d+)\./, (_, expiry: string) => `.${Number(expiry) + 600}.`);
    await expect(provider.phone!.check({ requestId: altered, code }, context())).resolves.toEqual({ valid: false });
    // Another API key cannot make or check the hash.
    await expect(termii({ apiKey: 'TLanotherKey1234' }).phone!.check({ requestId, code }, context())).resolves.toEqual({
      valid: false,
    });
    expect(watch.sent.length).toBe(before);
    const expiring = termii({ whatsappFrom: 'Acme Device', pinTimeToLiveMinutes: 0 });
    const late = await expiring.phone!.send({ phoneNumber: '+2348031110013', channel: 'whatsapp' }, context());
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await expect(
      expiring.phone!.check({ requestId: late.requestId, code: fake.lastCode('+2348031110013')! }, context()),
    ).resolves.toEqual({ valid: false, reason: 'expired' });
  });
  it("smsCodes 'messaging': an SMS code of ours by Send message on the code route, its message_id kept for reports, checked here", async () => {
    const provider = termii({ smsCodes: 'messaging', pinLength: 7, messageText: 'Acme code: < 1234 >' });
    const sent = await provider.phone!.send({ phoneNumber: '+2348031110014', channel: 'sms' }, context());
    const text = fake.lastMessage('+2348031110014')!;
    const code = /\d{7}/.exec(text)![0];
    expect(text).toBe(`Acme code: ${code}`);
    expect(lastRequest().url).toBe(`${fake.baseUrl}/api/sms/send`);
    expect(lastRequest().body).toEqual({
      api_key: apiKey,
      to: '2348031110014',
      from: 'Acme',
      sms: text,
      type: 'plain',
      channel: 'dnd',
    });
    // The id Termii's delivery reports name, so a report of this code finds its flow.
    expect(sent.messageId).toMatch(/^\d{19}$/);
    expect(sent.requestId).toMatch(/^sm1\./);
    expect(sent.requestId).not.toContain(code);
    const before = watch.sent.length;
    await expect(provider.phone!.check({ requestId: sent.requestId, code }, context())).resolves.toEqual({
      valid: true,
    });
    const wrong = code === '0000000' ? '1111111' : '0000000';
    await expect(provider.phone!.check({ requestId: sent.requestId, code: wrong }, context())).resolves.toEqual({
      valid: false,
    });
    // A WhatsApp requestId is not an SMS one: the schemes differ, so neither passes for the other.
    const forged = sent.requestId.replace(/^sm1\./, 'wa1.');
    await expect(provider.phone!.check({ requestId: forged, code }, context())).resolves.toEqual({ valid: false });
    expect(watch.sent.length).toBe(before);
    // The default stays Send Token (Termii's code and pinId).
    await termii().phone!.send({ phoneNumber: '+2348031110015', channel: 'sms' }, context());
    expect(lastRequest().url).toBe(`${fake.baseUrl}/api/sms/otp/send`);
    expect(() => termii({ smsCodes: 'email' as never })).toThrow(/smsCodes/);
  });
  it('the fake refuses the retired WhatsApp form of Send Token, and answers Verify Token with "True"/"False" strings', async () => {
    const retired = await fetch(`${fake.baseUrl}/api/sms/otp/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        api_key: apiKey,
        message_type: 'NUMERIC',
        pin_type: 'NUMERIC',
        to: '2348031110014',
        from: 'Acme',
        channel: 'WhatsApp',
        pin_attempts: 3,
        pin_time_to_live: 5,
        pin_length: 6,
        pin_placeholder: '< 1234 >',
        message_text: 'Your code is < 1234 >',
      }),
    });
    expect(retired.status).toBe(400);
    expect(await retired.json()).toEqual({ code: 'fail', message: expect.stringMatching(/whatsapp_otp/) });
    const { requestId } = await termii().phone!.send({ phoneNumber: '+2348031110014', channel: 'sms' }, context());
    const verify = async (pin: string) => {
      const answer = await fetch(`${fake.baseUrl}/api/sms/otp/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ api_key: apiKey, pin_id: requestId, pin }),
      });
      return (await answer.json()) as { verified: unknown };
    };
    const code = fake.lastCode('+2348031110014')!;
    expect((await verify(code === '000000' ? '111111' : '000000')).verified).toBe('False');
    expect(await verify(code)).toEqual({ pinId: requestId, verified: 'True', msisdn: '2348031110014' });
  });
  it('message_text comes from the template of the locale and channel (pt-BR, then pt), else messageText', async () => {
    const provider = termii({
      messageText: 'Code: < 1234 >',
      messageTemplates: { fr: 'Votre code est < 1234 >', pt: { sms: 'Seu código é < 1234 >' }, 'pt-BR': 'x< 1234 >' },
    });
    const phoneNumber = '+2348031110009';
    await provider.phone!.send({ phoneNumber, channel: 'sms', locale: 'fr' }, context());
    expect(lastRequest().body).toMatchObject({ pin_placeholder: '< 1234 >', message_text: 'Votre code est < 1234 >' });
    expect(fake.outbox.at(-1)!.text).toBe(`Votre code est ${fake.lastCode(phoneNumber)}`);
    await provider.phone!.send({ phoneNumber, channel: 'sms', locale: 'pt-PT' }, context());
    expect(lastRequest().body['message_text']).toBe('Seu código é < 1234 >');
    // The exact tag first, without regard to case.
    await provider.phone!.send({ phoneNumber, channel: 'sms', locale: 'pt-br' }, context());
    expect(lastRequest().body['message_text']).toBe('x< 1234 >');
    // en has no text at all: the default text. (WhatsApp codes go by Send WhatsApp Token, which takes the bare
    // code and no text: decision 0961.)
    await provider.phone!.send({ phoneNumber, channel: 'sms', locale: 'en' }, context());
    expect(lastRequest().body['message_text']).toBe('Code: < 1234 >');
    await provider.phone!.send({ phoneNumber, channel: 'sms' }, context());
    expect(lastRequest().body['message_text']).toBe('Code: < 1234 >');
  });
  it('originBoundHost and appHash end every SMS code with the origin line and the hash, from the settings alone', async () => {
    const provider = termii({
      messageText: 'Your Acme code is < 1234 >',
      messageTemplates: { fr: 'Votre code Acme : < 1234 >' },
      originBoundHost: 'Signup.Acme.ng',
      appHash: 'FA+9qCX9VSu',
    });
    const phoneNumber = '+2348031110009';
    await provider.phone!.send({ phoneNumber, channel: 'sms' }, context());
    expect(lastRequest().body['message_text']).toBe(
      'Your Acme code is < 1234 >\n\n@signup.acme.ng #< 1234 > FA+9qCX9VSu',
    );
    const code = fake.lastCode(phoneNumber)!;
    expect(fake.outbox.at(-1)!.text).toBe(`Your Acme code is ${code}\n\n@signup.acme.ng #${code} FA+9qCX9VSu`);
    // A send's input cannot change the line: unknown fields are ignored, the host is the setting's.
    await provider.phone!.send(
      { phoneNumber, channel: 'sms', locale: 'fr', originBoundHost: 'evil.example' } as never,
      context(),
    );
    expect(lastRequest().body['message_text']).toBe(
      'Votre code Acme : < 1234 >\n\n@signup.acme.ng #< 1234 > FA+9qCX9VSu',
    );
    // Without the settings, no line (the default).
    await termii().phone!.send({ phoneNumber, channel: 'sms' }, context());
    expect(lastRequest().body['message_text']).toBe('Your verification code is < 1234 >');
  });
  it("smsCodes 'messaging' with originBoundHost: the code in the text and in the origin line, both written here", async () => {
    const provider = termii({ smsCodes: 'messaging', messageText: 'Acme code: < 1234 >', originBoundHost: 'acme.ng' });
    await provider.phone!.send({ phoneNumber: '+2348031110015', channel: 'sms' }, context());
    const text = fake.lastMessage('+2348031110015')!;
    const code = /\d{6}/.exec(text)![0];
    expect(text).toBe(`Acme code: ${code}\n\n@acme.ng #${code}`);
  });
  it('with the origin line, a text that would not fit one SMS is refused at creation, naming it', () => {
    const long = `${'Welcome to Acme. '.repeat(8)}Your code: < 1234 >`;
    expect(() => termii({ messageText: long })).not.toThrow();
    expect(() => termii({ messageText: long, originBoundHost: 'acme.ng' })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'messageText' })] }),
    );
    const accented = 'Ọ̀rọ̀ aṣínà Acme rẹ ni < 1234 >. Má ṣe fi fún ẹnikẹ́ni.';
    expect(() => termii({ messageTemplates: { yo: accented }, originBoundHost: 'acme.ng' })).toThrow(
      expect.objectContaining({
        issues: [expect.objectContaining({ field: 'messageTemplates.yo', message: expect.stringMatching(/one SMS/) })],
      }),
    );
  });
  it('SMS on the messaging API (generic route unless told), WhatsApp with the device name', async () => {
    const sent = await termii().sms!.send({ to: '+2348031110003', message: 'Shipped' }, context());
    expect(sent.messageId).toMatch(/^\d+$/);
    expect(lastRequest().body).toEqual({
      api_key: apiKey,
      to: '2348031110003',
      from: 'Acme',
      sms: 'Shipped',
      type: 'plain',
      channel: 'generic',
    });
    await termii({ whatsappFrom: 'Acme Device' }).whatsapp!.send(
      { phoneNumber: '+2348031110003', message: 'Hi' },
      context(),
    );
    expect(lastRequest().body).toEqual({
      api_key: apiKey,
      to: '2348031110003',
      from: 'Acme Device',
      sms: 'Hi',
      type: 'plain',
      channel: 'whatsapp',
    });
  });
  it('the generic route does not reach a DND number (accepted, never delivered); the dnd route does', async () => {
    const dnd = magic('dnd');
    await termii().sms!.send({ to: dnd, message: 'generic route' }, context());
    expect(fake.lastMessage(dnd)).toBeUndefined();
    await termii({ messageRoute: 'dnd' }).sms!.send({ to: dnd, message: 'dnd route' }, context());
    expect(fake.lastMessage(dnd)).toBe('dnd route');
    await termii().phone!.send({ phoneNumber: dnd, channel: 'sms' }, context());
    expect(fake.lastCode(dnd)).toMatch(/^\d{6}$/);
  });
});

describe('termii: answers mapped to typed results and errors', () => {
  it('a wrong code is not valid; once the attempts are used up the code reads expired; an unknown pin id is rejected', async () => {
    const provider = termii({ pinAttempts: 2 });
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031110004', channel: 'sms' }, context());
    const code = fake.lastCode('+2348031110004')!;
    const wrong = code === '000000' ? '111111' : '000000';
    await expect(provider.phone!.check({ requestId, code: wrong }, context())).resolves.toEqual({ valid: false });
    await expect(provider.phone!.check({ requestId, code: wrong }, context())).resolves.toEqual({ valid: false });
    await expect(provider.phone!.check({ requestId, code }, context())).resolves.toEqual({
      valid: false,
      reason: 'expired',
    });
    expect(
      ProviderRejectedError.isInstance(
        await failure(provider.phone!.check({ requestId: '6f1c0d1e-0000-4000-8000-000000000000', code }, context())),
      ),
    ).toBe(true);
  });
  it('an expired code is reported as expired, not as an error', async () => {
    const provider = termii({ pinTimeToLiveMinutes: 0 });
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031110005', channel: 'sms' }, context());
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(
      provider.phone!.check({ requestId, code: fake.lastCode('+2348031110005')! }, context()),
    ).resolves.toEqual({ valid: false, reason: 'expired' });
  });
  it('a wrong key is an authentication error that never shows it; 429 is unavailable; a slow answer times out and is not retried', async () => {
    const wrong = await failure(
      termii({ apiKey: 'TLwrongKey999999' }).sms!.send({ to: '+2348031110006', message: 'x' }, context()),
    );
    expect(ProviderAuthenticationError.isInstance(wrong)).toBe(true);
    expect(JSON.stringify({ message: wrong.message, cause: String(wrong.cause) })).not.toContain('TLwrongKey999999');
    expect(
      ProviderUnavailableError.isInstance(
        await failure(termii().sms!.send({ to: magic('rate-limited'), message: 'x' }, context())),
      ),
    ).toBe(true);
    const before = watch.sent.length;
    const slow = await failure(termii({ timeout: 50 }).sms!.send({ to: magic('slow'), message: 'x' }, context()));
    expect(slow.message).toContain('did not answer within 50 ms');
    expect(watch.sent.length - before).toBe(1);
  });
});

describe('termii: capabilities, input and settings', () => {
  // A code of ours (no customCode), the inputs the spec refuses and Termii's sender rules send nothing:
  // runWireContract, in termii-hostile-answers.test.ts.
  it('declares no USSD, no BVN/NIN, no custom code', () => {
    const provider = termii();
    expect([provider.ussd, provider.identity, provider.phone!.customCode]).toEqual([undefined, undefined, false]);
    expect(provider.phone!.channels).toEqual(['sms', 'voice', 'whatsapp']);
  });
  it('without a sender id, SMS declares it needs one and a send without from names from', async () => {
    vi.stubEnv('TERMII_SENDER_ID', undefined);
    const provider = createTermiiProvider({ apiKey, baseUrl: fake.baseUrl });
    expect(provider.sms!.requires).toEqual(['sender']);
    expect((await failure(provider.sms!.send({ to: '+2348031110009', message: 'x' }, context()))).field).toBe('from');
    expect(
      (await failure(provider.whatsapp!.send({ phoneNumber: '+2348031110009', message: 'x' }, context()))).field,
    ).toBe('whatsappFrom');
  });
  it('settings come from TERMII_* when not passed, read at each call', async () => {
    vi.stubEnv('TERMII_API_KEY', apiKey);
    vi.stubEnv('TERMII_BASE_URL', fake.baseUrl);
    vi.stubEnv('TERMII_SENDER_ID', 'EnvSender');
    const provider = createTermiiProvider();
    // Found by text, not as the outbox's last: the "slow" number of an earlier test is delivered 3 s after its call.
    await provider.sms!.send({ to: '+2348031110010', message: 'from env' }, context());
    expect(fake.outbox.findLast((message) => message.text === 'from env')).toMatchObject({ from: 'EnvSender' });
    vi.stubEnv('TERMII_SENDER_ID', 'Other1');
    await provider.sms!.send({ to: '+2348031110010', message: 'again' }, context());
    expect(fake.outbox.findLast((message) => message.text === 'again')).toMatchObject({ from: 'Other1' });
  });
  const settings: Array<[string, unknown]> = [
    ['input', 'TLsecret'],
    ['apiKey', { apiKey: 12345 }],
    ['apiKey', { apiKey: `${apiKey} ` }],
    ['baseUrl', { apiKey, baseUrl: 'not a url' }],
    ['baseUrl', { apiKey, baseUrl: `https://u:${apiKey}@api.ng.termii.com` }],
    ['senderId', { apiKey, senderId: 'Far too long sender' }],
    ['pinLength', { apiKey, pinLength: 12 }],
    ['pinTimeToLiveMinutes', { apiKey, pinTimeToLiveMinutes: 61 }],
    ['messageText', { apiKey, messageText: 'no placeholder' }],
    ['messageTemplates.fr.whatsapp', { apiKey, messageTemplates: { fr: { whatsapp: 'Votre code' } } }],
    // Termii writes voice and WhatsApp codes' messages itself: a text for them would never be sent.
    ['messageTemplates.fr.whatsapp', { apiKey, messageTemplates: { fr: { whatsapp: 'Votre code < 1234 >' } } }],
    ['messageTemplates.yo.voice', { apiKey, messageTemplates: { yo: { sms: '< 1234 >', voice: '< 1234 >' } } }],
    ['messageTemplates.yo', { apiKey, messageTemplates: { yo: 'Koodu re ni {code}' } }],
    ['messageTemplates.french', { apiKey, messageTemplates: { french: 'Votre code est < 1234 >' } }],
    ['messageTemplates.fr.telegram', { apiKey, messageTemplates: { fr: { telegram: '< 1234 >' } } }],
    ['originBoundHost', { apiKey, originBoundHost: 'acme.ng\n@evil.example' }],
    ['originBoundHost', { apiKey, originBoundHost: 'https://acme.ng' }],
    ['appHash', { apiKey, appHash: 'FA+9qCX9VSu extra' }],
    ['otpRoute', { apiKey, otpRoute: 'fast' }],
    ['timeout', { apiKey, timeout: '10s' }],
    ['input', { apiKey, apikey: apiKey }],
  ];
  for (const [field, value] of settings) {
    it(`createTermiiProvider refuses ${field} naming it, never echoing the key`, async () => {
      const error = await failureOf(() => createTermiiProvider(value as TermiiProviderSettings));
      expect([InvalidInputError.isInstance(error), error.field]).toEqual([true, field]);
      expectNoSecrets(error, [apiKey]);
    });
  }
  it('a missing key names apiKey and TERMII_API_KEY; a malformed variable names the variable', () => {
    vi.stubEnv('TERMII_API_KEY', undefined);
    expect(() => createTermiiProvider({ baseUrl: fake.baseUrl })).toThrow(
      'apiKey is required: pass apiKey, or set TERMII_API_KEY',
    );
    vi.stubEnv('TERMII_API_KEY', 'has spaces in it');
    let error: unknown;
    try {
      createTermiiProvider({ baseUrl: fake.baseUrl });
    } catch (caught) {
      error = caught;
    }
    expect(InvalidInputError.isInstance(error) && error.field).toBe('TERMII_API_KEY');
  });
});

describe('termii: the key stays secret', () => {
  it('no error, log line or hook ever carries the key', () => {
    // The refusals of malformed input, thrown before any credential is read, are runWireContract's.
    expect(watch.kept.errors).toBeGreaterThan(5);
    expect(watch.kept.requests).toBeGreaterThan(5);
    watch.expectNoSecrets([apiKey]);
  });
});
