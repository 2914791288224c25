import { createRequire } from 'node:module';
import { parse } from 'node:querystring';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getExpectedBodyHash, getExpectedTwilioSignature, webhook } from 'twilio/lib/webhooks/webhooks.js';
import { verifyTwilioWebhook } from './twilio-signature.js';

// Issue 35, finding 9: twilio-node 6.3.1 (2026-11-18) validates webhooks signed with a SharedKey: the secret of the
// key and the algorithm (HMAC_SHA256) named by X-Twilio-Webhooks-Signature-Settings. Here twilio-node's own
// middleware (`webhook()`, which picks the secret and algorithm from the headers and validates) judges generated
// requests, and verikit's verifyTwilioWebhook must give the same verdict on every one. twilio is a devDependency,
// at exactly the version named in conformance/README.md, with the figure this test printed.

const twilioVersion = (createRequire(import.meta.url)('twilio/package.json') as { version: string }).version;
const cases = 4000;

/** A small seeded generator (mulberry32), so a failing case can be run again. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  return { next, pick, chance: (p: number) => next() < p };
}

interface Case {
  readonly authToken: string;
  readonly sharedKeySecret: string | undefined;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const hosts = ['app.example.com', 'hooks.example.org', '127.0.0.1', '[::1]'];
const paths = ['/twilio/status', '/verikit/webhooks', '/a/b%20c', "/o'brien"];
const queries = ['', '?flow=abc', '?source=twilio&flow=1', "?name=o'brien", '?x=%27y', '?a=1&a=2'];
const keys = ['MessageSid', 'MessageStatus', 'To', 'From', 'ErrorCode', 'Body', 'a', 'B', 'Z'];
const values = ['delivered', 'SMabc', '+2348031230001', 'été', '', 'a b', '30003', '1+1=2', '✓'];
const settingsHeaders: ReadonlyArray<string | undefined> = [
  undefined,
  undefined,
  '',
  'key=webhooks_sharedkey_0123,algorithm=HMAC_SHA256',
  'key=webhooks_sharedkey_0123,algorithm=HMAC_SHA256',
  'key=webhooks_sharedkey_0123, algorithm = hmac_sha256',
  'algorithm=HMAC_SHA256',
  'key=webhooks_sharedkey_0123,algorithm=HMAC_SHA1',
  'key=webhooks_sharedkey_0123',
  'key=webhooks_sharedkey_0123,algorithm=',
  'key=webhooks_sharedkey_0123,algorithm=HMAC_SHA512',
  ' ',
];

/** One request as Twilio (or an attacker) might send it. */
function generate(random: ReturnType<typeof generator>): Case {
  const authToken = `token-${Math.floor(random.next() * 1e9).toString(16)}`;
  const sharedKeySecret = random.chance(0.9) ? `secret-${Math.floor(random.next() * 1e9).toString(36)}` : undefined;
  const scheme = random.pick(['https', 'http']);
  const host = random.pick(hosts);
  const port = random.pick(['', '', ':443', ':80', ':8443']);
  const json = random.chance(0.15);
  let body: string;
  let query = random.pick(queries);
  if (json) {
    body = JSON.stringify({ event: random.pick(values), n: Math.floor(random.next() * 100) });
    query = `${query === '' ? '?' : `${query}&`}bodySHA256=${getExpectedBodyHash(body)}`;
  } else {
    const fields = new URLSearchParams();
    const count = Math.floor(random.next() * 6);
    for (let index = 0; index < count; index += 1) fields.append(random.pick(keys), random.pick(values));
    body = fields.toString();
  }
  const configured = `${scheme}://${host}${port}${random.pick(paths)}${query}`;
  // Twilio may have signed the URL with or without the port: twilio-node tries both.
  const signedUrl = random.chance(0.2)
    ? port === ''
      ? configured.replace(host, `${host}${scheme === 'https' ? ':443' : ':80'}`)
      : configured.replace(port, '')
    : configured;
  const settings = random.pick(settingsHeaders);
  // Who signed, with what: mostly the key and algorithm the header names, sometimes another (a forger, a mix-up).
  const named = settings !== undefined && settings !== '';
  const signer = random.chance(0.8)
    ? named
      ? (sharedKeySecret ?? 'no-secret')
      : authToken
    : random.pick([authToken, sharedKeySecret ?? 'x', 'attacker-key']);
  const algorithm = random.chance(0.85)
    ? /sha256/i.test(settings ?? '')
      ? 'HMAC_SHA256'
      : 'HMAC_SHA1'
    : random.pick(['HMAC_SHA1', 'HMAC_SHA256']);
  const params = json ? {} : (parse(body) as Record<string, string | string[]>);
  let signature = getExpectedTwilioSignature(signer, signedUrl, params, algorithm);
  if (random.chance(0.05)) signature = `${signature.slice(0, -2)}A=`;
  const headers: Record<string, string> = random.chance(0.97) ? { 'x-twilio-signature': signature } : {};
  if (settings !== undefined) headers['x-twilio-webhooks-signature-settings'] = settings;
  // Sometimes the body is changed after signing.
  if (random.chance(0.05)) body = json ? body.replace('"n":', '"n" :') : `${body}&Injected=1`;
  return { authToken, sharedKeySecret, url: configured, headers, body };
}

/** twilio-node's verdict: its Express middleware on a request shaped as Express gives it. */
function twilioVerdict(each: Case): boolean {
  const header = (name: string) =>
    Object.entries(each.headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  const request = {
    header,
    headers: each.headers,
    protocol: 'https',
    originalUrl: new URL(each.url).pathname,
    body: each.url.includes('bodySHA256') ? {} : parse(each.body),
    rawBody: each.body,
  };
  let passed = false;
  const response = { type: () => response, status: () => response, send: () => response };
  const middleware = webhook(each.authToken, {
    url: each.url,
    ...(each.sharedKeySecret === undefined ? {} : { sharedKeySecret: each.sharedKeySecret }),
  });
  middleware(request as never, response as never, () => {
    passed = true;
  });
  return passed;
}

describe(`Twilio webhook signatures (auth token and SharedKey) agree with twilio-node ${twilioVersion}`, () => {
  beforeAll(() => {
    // twilio-node warns on an unsupported algorithm and a missing secret: cases here do both on purpose.
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterAll(() => vi.restoreAllMocks());

  it('is twilio-node 6.3.1, the version that added SharedKey signatures', () => {
    expect(twilioVersion).toBe('6.3.1');
  });

  it(`gives twilio-node's verdict on ${cases} generated requests`, () => {
    const random = generator(35_009);
    const disagreements: Array<{ index: number; twilio: boolean; verikit: boolean; each: Case }> = [];
    const verdicts = { valid: 0, sharedKeyValid: 0, sha256Valid: 0, refused: 0 };
    for (let index = 0; index < cases; index += 1) {
      const each = generate(random);
      const twilio = twilioVerdict(each);
      const verikit = verifyTwilioWebhook(each);
      if (twilio !== verikit) disagreements.push({ index, twilio, verikit, each });
      const settings = each.headers['x-twilio-webhooks-signature-settings'];
      if (twilio) verdicts.valid += 1;
      else verdicts.refused += 1;
      if (twilio && settings) verdicts.sharedKeyValid += 1;
      if (twilio && /sha256/i.test(settings ?? '')) verdicts.sha256Valid += 1;
    }
    console.info(`twilio-node ${twilioVersion}: ${cases - disagreements.length}/${cases} agree`, verdicts);
    expect(disagreements.slice(0, 3)).toEqual([]);
    // The cases must exercise each side, or agreement would prove little.
    expect(verdicts.sha256Valid).toBeGreaterThan(cases / 10);
    expect(verdicts.valid - verdicts.sharedKeyValid).toBeGreaterThan(cases / 10);
    expect(verdicts.refused).toBeGreaterThan(cases / 10);
  });
});
