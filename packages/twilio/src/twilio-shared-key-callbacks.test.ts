import { readFileSync } from 'node:fs';
import { silentLogger, type RawWebhookV1 } from '@verikit/provider';
import { freshPhoneNumber, startWebhookReceiver, type WebhookReceiver } from '@verikit/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTwilioProvider } from './create-twilio-provider.js';
import { startTwilioFake, type TwilioFake } from './fake/index.js';
import { createTwilioSignatureVerifier } from './twilio-signature.js';
import { createTwilioStatusCallbackVerifier } from './twilio-status-callback.js';

// Issue 35, finding 9: an account that switches its webhooks to a SharedKey gets callbacks signed with the key's
// secret and HMAC-SHA256, named by X-Twilio-Webhooks-Signature-Settings. Verified end to end: the fake signs as
// Twilio does, a local endpoint receives, the verifiers judge what it received.
const sharedKey = { id: 'webhooks_sharedkey_0123456789', secret: 'shared-key-secret-of-this-account' };
let fake: TwilioFake;
let receiver: WebhookReceiver;
let callbackUrl: string;
let received: readonly RawWebhookV1[];
const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'f:effect:1', logger: silentLogger });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  received = receiver.received;
  callbackUrl = `${receiver.url}?source=twilio`;
  fake = await startTwilioFake({ statusDelayMs: 1, webhookSharedKey: sharedKey });
  const provider = createTwilioProvider({ ...fake.settings, from: '+15005550006', statusCallbackUrl: callbackUrl });
  await provider.sms!.send({ to: freshPhoneNumber(), message: 'hello' }, context());
  await fake.messagesSettled();
});
afterAll(async () => {
  await fake.close();
  await receiver.close();
});
afterEach(() => vi.unstubAllEnvs());

describe('twilio callbacks signed with a SharedKey', () => {
  it('carry the settings header and an HMAC-SHA256 signature', () => {
    expect(received.length).toBeGreaterThan(0);
    expect(received[0]!.headers['x-twilio-webhooks-signature-settings']).toBe(
      `key=${sharedKey.id},algorithm=HMAC_SHA256`,
    );
    expect(Buffer.from(received[0]!.headers['x-twilio-signature']!, 'base64')).toHaveLength(32);
  });

  it('are verified with the SharedKey secret, given or from TWILIO_SHARED_KEY_SECRET', () => {
    const given = createTwilioStatusCallbackVerifier({
      url: callbackUrl,
      authToken: fake.settings.authToken,
      sharedKeySecret: sharedKey.secret,
    });
    for (const callback of received) expect(given.verify(callback).id).toMatch(/^SM[0-9a-f]{32}:/);
    vi.stubEnv('TWILIO_SHARED_KEY_SECRET', sharedKey.secret);
    const fromEnvironment = createTwilioStatusCallbackVerifier({
      url: callbackUrl,
      authToken: fake.settings.authToken,
    });
    expect(() => fromEnvironment.verify(received[0]!)).not.toThrow();
    const path = new URL(callbackUrl);
    const onARoute = createTwilioSignatureVerifier({ publicUrl: path.origin, authToken: fake.settings.authToken });
    expect(onARoute({ path: path.pathname + path.search, ...received[0]! })).toBe(true);
  });

  it('attacker: refused without the secret, with another secret, with the auth token, or with the header removed', () => {
    const verifier = (sharedKeySecret?: string) =>
      createTwilioStatusCallbackVerifier({
        url: callbackUrl,
        authToken: fake.settings.authToken,
        ...(sharedKeySecret === undefined ? {} : { sharedKeySecret }),
      });
    const genuine = received[0]!;
    const { 'x-twilio-webhooks-signature-settings': _, ...withoutSettings } = genuine.headers;
    const downgraded = {
      ...genuine,
      headers: { ...genuine.headers, 'x-twilio-webhooks-signature-settings': 'key=k,algorithm=HMAC_SHA1' },
    };
    expect(() => verifier().verify(genuine)).toThrow(/X-Twilio-Signature/);
    expect(() => verifier('another-secret').verify(genuine)).toThrow(/X-Twilio-Signature/);
    expect(() => verifier(fake.settings.authToken).verify(genuine)).toThrow(/X-Twilio-Signature/);
    expect(() => verifier(sharedKey.secret).verify({ ...genuine, headers: withoutSettings })).toThrow(
      /X-Twilio-Signature/,
    );
    expect(() => verifier(sharedKey.secret).verify(downgraded)).toThrow(/X-Twilio-Signature/);
    const tampered = { ...genuine, body: genuine.body.replace(/MessageStatus=\w+/, 'MessageStatus=delivered') };
    if (tampered.body !== genuine.body) expect(() => verifier(sharedKey.secret).verify(tampered)).toThrow();
  });
});

/** The snippet of docs/providers/twilio.md ("Webhooks signed with a SharedKey"), as the page shows it. */
function documented(sharedKeySecret: string) {
  // snippet:start
  // TWILIO_AUTH_TOKEN and TWILIO_SHARED_KEY_SECRET from the environment, or passed:
  const verify = createTwilioSignatureVerifier({ publicUrl: 'https://app.example.com', sharedKeySecret });
  const scheme = createTwilioStatusCallbackVerifier({ sharedKeySecret });
  // snippet:end
  return { verify, scheme };
}

describe('docs/providers/twilio.md: the SharedKey snippet', () => {
  it('is on the page as this test runs it, and verifies a SharedKey callback', () => {
    const page = readFileSync(new URL('../../../docs/providers/twilio.md', import.meta.url), 'utf8');
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const start = source.indexOf('// snippet:start\n') + 17;
    const snippet = source.slice(start, source.indexOf('  // snippet:end')).replace(/^ {2}/gm, '');
    expect(page).toContain(`<!-- shared-key -->\n\`\`\`ts\n${snippet}\`\`\``);
    vi.stubEnv('TWILIO_AUTH_TOKEN', fake.settings.authToken);
    vi.stubEnv('TWILIO_STATUS_CALLBACK_URL', callbackUrl);
    const { verify, scheme } = documented(sharedKey.secret);
    expect(() => scheme.verify(received[0]!)).not.toThrow();
    // Signed for the local callback URL, not for https://app.example.com: refused there.
    const path = new URL(callbackUrl);
    expect(verify({ path: path.pathname + path.search, ...received[0]! })).toBe(false);
  });
});
