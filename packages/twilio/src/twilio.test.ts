import { createHmac } from 'node:crypto';
import {
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderRejectedError,
  RateLimitedError,
  type ProviderV1,
} from '@verikit/provider';
import { expectNoSecrets, failureOf, leakWatch, magicNumberOf } from '@verikit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTwilioProvider } from './create-twilio-provider.js';
import { startTwilioFake, twilioMagicNumbers, type TwilioFake, type TwilioMagicBehaviour } from './fake/index.js';
import { createTwilioSignatureVerifier, verifyTwilioSignature } from './twilio-signature.js';
import type { TwilioProviderSettings } from './twilio-settings.js';

const authToken = 'twilioSecretAuthToken0123456789';
const apiKey = { sid: `SK${'a'.repeat(32)}`, secret: 'twilioSecretApiKeySecret987' };
const watch = leakWatch();
const { context, failure } = watch;
const magic = (wanted: TwilioMagicBehaviour) => magicNumberOf(twilioMagicNumbers, wanted);
/** The last request on the wire, its form body read. */
const lastRequest = () => {
  const last = watch.sent.at(-1)!;
  return { ...last, form: Object.fromEntries(new URLSearchParams(last.body)) };
};

let fake: TwilioFake;

function twilio(overrides: Partial<TwilioProviderSettings> = {}): ProviderV1 {
  return createTwilioProvider({
    ...fake.settings,
    authToken,
    from: '+15005550006',
    whatsappFrom: '+14155238886',
    fetch: watch.fetch,
    hooks: watch.hooks,
    ...overrides,
  });
}

beforeAll(async () => {
  fake = await startTwilioFake({ authToken, apiKey, slowMs: 300 });
});
afterAll(() => fake.close());
afterEach(() => vi.unstubAllEnvs());

describe('twilio: the wire', () => {
  it('Verifications and VerificationCheck: form bodies, Basic auth, Channel call for voice, Locale', async () => {
    const provider = twilio({ locale: 'fr' });
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031120001', channel: 'voice' }, context());
    expect(requestId).toMatch(/^VE[0-9a-f]{32}$/);
    const wire = lastRequest();
    expect(wire.url).toBe(`${fake.url}/v2/Services/${fake.settings.verifyServiceSid}/Verifications`);
    expect(wire.form).toEqual({ To: '+2348031120001', Channel: 'call', Locale: 'fr' });
    expect(wire.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(wire.headers['authorization']).toBe(`Basic ${btoa(`${fake.settings.accountSid}:${authToken}`)}`);
    await expect(
      provider.phone!.check({ requestId, code: fake.lastCode('+2348031120001')! }, context()),
    ).resolves.toEqual({ valid: true });
    expect(lastRequest().form).toEqual({ VerificationSid: requestId, Code: fake.lastCode('+2348031120001') });
  });
  it('appHash goes with SMS verifications as AppHash (Twilio appends it to its text), never with a call', async () => {
    const provider = twilio({ appHash: 'FA+9qCX9VSu' });
    await provider.phone!.send({ phoneNumber: '+2348031120004', channel: 'sms' }, context());
    expect(lastRequest().form).toEqual({ To: '+2348031120004', Channel: 'sms', AppHash: 'FA+9qCX9VSu' });
    await provider.phone!.send({ phoneNumber: '+2348031120004', channel: 'voice' }, context());
    expect(lastRequest().form).toEqual({ To: '+2348031120004', Channel: 'call' });
    expect(() => twilio({ appHash: 'not a hash' })).toThrow(
      expect.objectContaining({ issues: [expect.objectContaining({ field: 'appHash' })] }),
    );
  });
  it('a resend keeps Twilio’s verification (same SID, same code) and gets its own requestId', async () => {
    const provider = twilio();
    const first = await provider.phone!.send(
      { phoneNumber: '+2348031120002', channel: 'sms', locale: 'pt-BR' },
      context(),
    );
    expect(lastRequest().form['Locale']).toBe('pt-BR');
    const second = await provider.phone!.send({ phoneNumber: '+2348031120002', channel: 'whatsapp' }, context());
    expect(second.requestId).toBe(`${first.requestId}.2`);
    await expect(
      provider.phone!.check({ requestId: second.requestId, code: fake.lastCode('+2348031120002')! }, context()),
    ).resolves.toEqual({ valid: true });
  });
  it('SMS and WhatsApp on Messages.json: From or MessagingServiceSid, whatsapp: addresses, an API key pair', async () => {
    const keyed = twilio({ authToken: undefined, apiKeySid: apiKey.sid, apiKeySecret: apiKey.secret });
    const { messageId } = await keyed.sms!.send({ to: '+2348031120003', message: 'Shipped' }, context());
    expect(messageId).toMatch(/^SM[0-9a-f]{32}$/);
    expect(lastRequest().url).toBe(`${fake.url}/2010-04-01/Accounts/${fake.settings.accountSid}/Messages.json`);
    expect(lastRequest().form).toEqual({ To: '+2348031120003', From: '+15005550006', Body: 'Shipped' });
    expect(lastRequest().headers['authorization']).toBe(`Basic ${btoa(`${apiKey.sid}:${apiKey.secret}`)}`);
    await twilio({ messagingServiceSid: `MG${'1'.repeat(32)}` }).sms!.send(
      { to: '+2348031120003', message: 'Via service' },
      context(),
    );
    expect(lastRequest().form).toEqual({
      To: '+2348031120003',
      MessagingServiceSid: `MG${'1'.repeat(32)}`,
      Body: 'Via service',
    });
    // Free text is sent only when the app allows it (the user wrote within 24 hours): twilio-whatsapp.test.ts.
    fake.openWhatsAppWindow('+2348031120003');
    await twilio({ whatsappFreeText: true }).whatsapp!.send(
      { phoneNumber: '+2348031120003', message: 'Hi' },
      context(),
    );
    expect(lastRequest().form).toEqual({ To: 'whatsapp:+2348031120003', From: 'whatsapp:+14155238886', Body: 'Hi' });
    expect(fake.outbox.at(-1)).toMatchObject({ channel: 'whatsapp', to: '+2348031120003', text: 'Hi' });
  });
});

describe('twilio: error codes mapped', () => {
  it('not found after approval is the flow’s own state (not-pending), not an error', async () => {
    const provider = twilio();
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031120004', channel: 'sms' }, context());
    const code = fake.lastCode('+2348031120004')!;
    await expect(provider.phone!.check({ requestId, code }, context())).resolves.toEqual({ valid: true });
    await expect(provider.phone!.check({ requestId, code }, context())).resolves.toEqual({
      valid: false,
      reason: 'not-pending',
    });
  });
  it('max check attempts (60202) is attempts-exhausted; max send attempts (60203) is a RateLimitedError', async () => {
    const provider = twilio();
    const { requestId } = await provider.phone!.send({ phoneNumber: '+2348031120005', channel: 'sms' }, context());
    const wrong = fake.lastCode('+2348031120005') === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt += 1)
      await expect(provider.phone!.check({ requestId, code: wrong }, context())).resolves.toEqual({ valid: false });
    await expect(provider.phone!.check({ requestId, code: wrong }, context())).resolves.toEqual({
      valid: false,
      reason: 'attempts-exhausted',
    });
    const limited = await failure(
      provider.phone!.send({ phoneNumber: magic('max-send-attempts'), channel: 'sms' }, context()),
    );
    expect(RateLimitedError.isInstance(limited) && limited.retryAt > Date.now()).toBe(true);
    for (let send = 0; send < 5; send += 1)
      await provider.phone!.send({ phoneNumber: '+2348031120006', channel: 'sms' }, context());
    expect(
      RateLimitedError.isInstance(
        await failure(provider.phone!.send({ phoneNumber: '+2348031120006', channel: 'sms' }, context())),
      ),
    ).toBe(true);
  });
  it('an unsubscribed recipient (21610) is rejected with Twilio’s message and code; wrong credentials never show', async () => {
    const stop = await failure(twilio().sms!.send({ to: magic('unsubscribed'), message: 'x' }, context()));
    expect(ProviderRejectedError.isInstance(stop) && stop.providerMessage).toContain(
      'unsubscribed recipient (Twilio error 21610)',
    );
    const wrong = await failure(
      twilio({ authToken: 'wrongTwilioToken123456' }).sms!.send({ to: '+2348031120007', message: 'x' }, context()),
    );
    expect(ProviderAuthenticationError.isInstance(wrong)).toBe(true);
    expect(String(wrong)).not.toContain('wrongTwilioToken123456');
  });
});

describe('twilio: X-Twilio-Signature', () => {
  const sign = (url: string, params: Record<string, string>) =>
    createHmac('sha1', authToken)
      .update(
        url +
          Object.keys(params)
            .sort()
            .map((key) => key + params[key])
            .join(''),
      )
      .digest('base64');
  it('verifies a form callback against the public URL, behind a proxy', () => {
    const params = { MessageSid: `SM${'2'.repeat(32)}`, MessageStatus: 'delivered', To: '+2348031120008' };
    const signature = sign('https://app.example.com/twilio/status?flow=abc', params);
    const verify = createTwilioSignatureVerifier({ publicUrl: 'https://app.example.com/', authToken });
    const body = new URLSearchParams(params).toString();
    expect(verify({ path: '/twilio/status?flow=abc', headers: { 'X-Twilio-Signature': signature }, body })).toBe(true);
    expect(verify({ path: '/twilio/status?flow=abd', headers: { 'x-twilio-signature': signature }, body })).toBe(false);
    expect(
      verify({
        path: '/twilio/status?flow=abc',
        headers: { 'x-twilio-signature': signature },
        body: `${body}&Extra=1`,
      }),
    ).toBe(false);
    expect(verify({ path: '/twilio/status?flow=abc', headers: {}, body })).toBe(false);
    expect(verify({ path: 'https://evil.example.com/x', headers: { 'x-twilio-signature': signature }, body })).toBe(
      false,
    );
  });
  it('JSON callbacks: the body must hash to bodySHA256, the signature covers the URL', async () => {
    const body = JSON.stringify({ status: 'approved' });
    const hash = (await import('node:crypto')).createHash('sha256').update(body).digest('hex');
    const url = `https://app.example.com/hook?bodySHA256=${hash}`;
    const signature = createHmac('sha1', authToken).update(url).digest('base64');
    expect(verifyTwilioSignature({ authToken, url, body, signature })).toBe(true);
    expect(verifyTwilioSignature({ authToken, url, body: `${body} `, signature })).toBe(false);
  });
  it('bad verifier options name the option', () => {
    for (const [field, options] of [
      ['publicUrl', { publicUrl: 'not a url', authToken }],
      ['authToken', { publicUrl: 'https://a.example.com', authToken: 'has space' }],
    ] as const) {
      let error: unknown;
      try {
        createTwilioSignatureVerifier(options);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    }
  });
});

describe('twilio: capabilities, input and settings', () => {
  // A code of ours without customCode, the inputs the spec refuses and Twilio's own rules send nothing:
  // runWireContract, in twilio-hostile-answers.test.ts.
  it('declares no USSD, no BVN/NIN, no webhooks without a status callback URL, and no custom code by default', () => {
    const provider = twilio();
    expect([provider.ussd, provider.identity, provider.webhooks, provider.phone!.customCode]).toEqual([
      undefined,
      undefined,
      undefined,
      false,
    ]);
  });
  it('a requestId that is not a Verification SID is rejected without a request', async () => {
    const before = watch.sent.length;
    expect(
      ProviderRejectedError.isInstance(
        await failure(twilio().phone!.check({ requestId: 'no-such-request', code: '1234' }, context())),
      ),
    ).toBe(true);
    expect(watch.sent.length).toBe(before);
  });
  it('settings come from TWILIO_* when not passed', async () => {
    vi.stubEnv('TWILIO_ACCOUNT_SID', fake.settings.accountSid);
    vi.stubEnv('TWILIO_AUTH_TOKEN', authToken);
    vi.stubEnv('TWILIO_VERIFY_SERVICE_SID', fake.settings.verifyServiceSid);
    vi.stubEnv('TWILIO_VERIFY_BASE_URL', fake.url);
    vi.stubEnv('TWILIO_API_BASE_URL', fake.url);
    vi.stubEnv('TWILIO_FROM', 'Acme');
    const provider = createTwilioProvider();
    await provider.phone!.send({ phoneNumber: '+2348031120011', channel: 'sms' }, context());
    await provider.sms!.send({ to: '+2348031120011', message: 'env' }, context());
    expect(fake.outbox.at(-1)).toMatchObject({ from: 'Acme', text: 'env' });
  });
  const settings: Array<[string, unknown]> = [
    ['input', 42],
    ['accountSid', { accountSid: 'AC123', authToken }],
    ['authToken', { accountSid: `AC${'0'.repeat(32)}`, authToken: '' }],
    ['apiKeySecret', { accountSid: `AC${'0'.repeat(32)}`, apiKeySid: apiKey.sid }],
    ['verifyServiceSid', { accountSid: `AC${'0'.repeat(32)}`, authToken, verifyServiceSid: 'VA-nope' }],
    ['from', { accountSid: `AC${'0'.repeat(32)}`, authToken, from: '12345' }],
    [
      'verifyBaseUrl',
      { accountSid: `AC${'0'.repeat(32)}`, authToken, verifyBaseUrl: `https://u:${authToken}@verify.twilio.com` },
    ],
    ['customCode', { accountSid: `AC${'0'.repeat(32)}`, authToken, customCode: 'yes' }],
    ['input', { accountSid: `AC${'0'.repeat(32)}`, authtoken: authToken }],
  ];
  for (const [field, value] of settings) {
    it(`createTwilioProvider refuses ${field} naming it, never echoing the token`, async () => {
      vi.stubEnv('TWILIO_AUTH_TOKEN', undefined);
      vi.stubEnv('TWILIO_ACCOUNT_SID', undefined);
      const error = await failureOf(() => createTwilioProvider(value as TwilioProviderSettings));
      expect([InvalidInputError.isInstance(error), error.field]).toEqual([true, field]);
      expectNoSecrets(error, [authToken]);
    });
  }
  it('missing credentials name the setting and its variable', () => {
    vi.stubEnv('TWILIO_AUTH_TOKEN', undefined);
    vi.stubEnv('TWILIO_ACCOUNT_SID', undefined);
    expect(() => createTwilioProvider()).toThrow('accountSid is required: pass accountSid, or set TWILIO_ACCOUNT_SID');
    expect(() => createTwilioProvider({ accountSid: `AC${'0'.repeat(32)}` })).toThrow('TWILIO_AUTH_TOKEN');
  });
});

describe('twilio: credentials stay secret', () => {
  it('no error, log line or hook ever carries the auth token or the key secret', () => {
    // The refusals of malformed input, thrown before any credential is read, are runWireContract's.
    expect(watch.kept.errors).toBeGreaterThan(4);
    expect(watch.kept.requests).toBeGreaterThan(5);
    watch.expectNoSecrets([authToken, apiKey.secret, btoa(`${fake.settings.accountSid}:${authToken}`)]);
  });
});
