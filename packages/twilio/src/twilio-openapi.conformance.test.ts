import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger, type ProviderCallContextV1, type ProviderV1 } from '@verikit/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTwilioProvider } from './create-twilio-provider.js';
import type { TwilioProviderSettings } from './twilio-settings.js';

// Twilio's published OpenAPI files (conformance/README.md: source, commit, date), served by Stoplight Prism:
// Prism refuses a request whose path, method, credentials or form fields the spec does not allow (401, 404,
// 405, 422). A recording proxy in front of each Prism keeps every request the provider makes and Prism's answer.
const conformance = join(dirname(fileURLToPath(import.meta.url)), '../conformance');
const prism = join(
  dirname(createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json')),
  'dist/index.js',
);

interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly answer: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts `prism mock` on a spec and a recording proxy in front of it. */
async function serve(spec: string) {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [prism, 'mock', join(conformance, spec), '-h', '127.0.0.1', '-p', String(port), '--errors'],
    { stdio: 'ignore' },
  );
  const target = `http://127.0.0.1:${port}`;
  // Ready when it answers anything (an unknown path is a 404 from Prism); patience is not a timing assertion.
  for (let tries = 0; ; tries += 1) {
    const answered = await fetch(`${target}/ready`).then(
      () => true,
      () => false,
    );
    if (answered) break;
    if (tries > 600 || child.exitCode !== null) throw new Error(`prism did not start on ${spec}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const exchanges: Exchange[] = [];
  const requests: string[] = [];
  const proxy: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)),
      ) as Record<string, string>;
      const method = request.method ?? 'GET';
      requests.push(Buffer.concat(chunks).toString('utf8'));
      const forwarded = await fetch(target + request.url, {
        method,
        headers,
        ...(method === 'GET' ? {} : { body: Buffer.concat(chunks) }),
      });
      const answer = await forwarded.text();
      exchanges.push({ method, path: request.url ?? '', status: forwarded.status, answer });
      response.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'text/plain' });
      response.end(answer);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    exchanges,
    requests,
    async close() {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

type Served = Awaited<ReturnType<typeof serve>>;
let verify: Served;
let api: Served;
const accountSid = `AC${'0123456789abcdef'.repeat(2)}`;
const verifyServiceSid = `VA${'0123456789abcdef'.repeat(2)}`;
const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});
const twilio = (overrides: Partial<TwilioProviderSettings> = {}): ProviderV1 =>
  createTwilioProvider({
    accountSid,
    authToken: 'conformance-auth-token',
    verifyServiceSid,
    from: '+15005550006',
    whatsappFrom: '+14155238886',
    whatsappContentSid: `HX${'0123456789abcdef'.repeat(2)}`,
    statusCallbackUrl: 'https://app.example.com/verikit/webhooks',
    verifyBaseUrl: verify.url,
    apiBaseUrl: api.url,
    timeout: 20_000,
    ...overrides,
  });

beforeAll(async () => {
  [verify, api] = await Promise.all([serve('twilio_verify_v2.json'), serve('twilio_api_v2010.json')]);
}, 180_000);
afterAll(async () => {
  await Promise.all([verify?.close(), api?.close()]);
});

describe("the Twilio provider's requests against Twilio's published OpenAPI spec (Stoplight Prism)", () => {
  it('every request the provider makes is accepted', async () => {
    const phone = '+2348031230001';
    const provider = twilio();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['phone.send sms', () => provider.phone!.send({ phoneNumber: phone, channel: 'sms' }, context())],
      ['phone.send voice', () => provider.phone!.send({ phoneNumber: phone, channel: 'voice' }, context())],
      ['phone.send whatsapp', () => provider.phone!.send({ phoneNumber: phone, channel: 'whatsapp' }, context())],
      [
        'phone.send locale',
        () => provider.phone!.send({ phoneNumber: phone, channel: 'sms', locale: 'fr' }, context()),
      ],
      [
        'phone.send resend',
        () => provider.phone!.send({ phoneNumber: phone, channel: 'sms', resendOf: `VE${'a'.repeat(32)}` }, context()),
      ],
      [
        'phone.send custom code',
        () =>
          twilio({ customCode: true }).phone!.send({ phoneNumber: phone, channel: 'sms', code: '482913' }, context()),
      ],
      [
        'phone.send with an API key',
        () =>
          twilio({
            authToken: undefined,
            apiKeySid: `SK${'0123456789abcdef'.repeat(2)}`,
            apiKeySecret: 'secret',
          }).phone!.send({ phoneNumber: phone, channel: 'sms' }, context()),
      ],
      ['phone.check', () => provider.phone!.check({ requestId: `VE${'a'.repeat(32)}`, code: '123456' }, context())],
      [
        'sms.send from, no status callback',
        () =>
          twilio({ statusCallbackUrl: undefined }).sms!.send(
            { from: '+15005550006', to: phone, message: 'Your order shipped' },
            context(),
          ),
      ],
      [
        'sms.send messaging service',
        () =>
          twilio({ from: undefined, messagingServiceSid: `MG${'0123456789abcdef'.repeat(2)}` }).sms!.send(
            { to: phone, message: 'Your order shipped' },
            context(),
          ),
      ],
      [
        'whatsapp.send template',
        () => provider.whatsapp!.send({ phoneNumber: phone, message: 'Your order shipped' }, context()),
      ],
      [
        'whatsapp.send free text',
        () =>
          twilio({ whatsappContentSid: undefined, whatsappFreeText: true }).whatsapp!.send(
            { phoneNumber: phone, message: 'Your order shipped' },
            context(),
          ),
      ],
      [
        'phone.send whatsapp by messaging',
        () =>
          twilio({ whatsappCodes: 'messaging' }).phone!.send({ phoneNumber: phone, channel: 'whatsapp' }, context()),
      ],
      [
        'sms.send with a status callback',
        () => provider.sms!.send({ from: '+15005550006', to: phone, message: 'Your order shipped' }, context()),
      ],
    ];
    for (const [, call] of calls) await call().catch(() => undefined);
    const exchanges = [...verify.exchanges, ...api.exchanges];
    const refused = exchanges.filter((each) => each.status < 200 || each.status > 299);
    expect(refused, JSON.stringify(refused, null, 2)).toEqual([]);
    expect(exchanges).toHaveLength(calls.length);
    expect(verify.exchanges.map((each) => `${each.method} ${each.path}`)).toContain(
      `POST /v2/Services/${verifyServiceSid}/VerificationCheck`,
    );
    expect(api.exchanges.map((each) => `${each.method} ${each.path}`)).toContain(
      `POST /2010-04-01/Accounts/${accountSid}/Messages.json`,
    );
    // The new fields were on the wire, and Prism accepted them.
    const forms = api.requests.map((body) => Object.fromEntries(new URLSearchParams(body)));
    expect(
      forms.filter((form) => form['ContentSid'] !== undefined && form['ContentVariables'] !== undefined),
    ).toHaveLength(2);
    // Every message carries the configured status callback, except the one sent by a provider configured without.
    expect(forms.map((form) => form['StatusCallback'] ?? 'none').sort()).toEqual([
      ...Array.from({ length: forms.length - 1 }, () => 'https://app.example.com/verikit/webhooks'),
      'none',
    ]);
  }, 120_000);

  it('refuses planted bad requests: no credentials, a missing field, a field off its pattern, a wrong path or method', async () => {
    const basic = `Basic ${Buffer.from(`${accountSid}:token`).toString('base64')}`;
    const form = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
    const verifications = `${verify.url}/v2/Services/${verifyServiceSid}/Verifications`;
    const planted: Array<[string, string, RequestInit, number[]]> = [
      ['no credentials', verifications, { method: 'POST', body: 'To=%2B2348031230001&Channel=sms' }, [401]],
      ['no To', verifications, { method: 'POST', headers: form, body: 'Channel=sms' }, [422]],
      [
        'a field off its pattern',
        verifications,
        { method: 'POST', headers: form, body: 'To=%2B2348031230001&Channel=sms&TemplateSid=HJ1' },
        [422],
      ],
      [
        'a wrong path',
        `${verify.url}/v2/Services/${verifyServiceSid}/Verification`,
        { method: 'POST', headers: form, body: 'To=%2B2348031230001&Channel=sms' },
        [404],
      ],
      ['a wrong method', verifications, { method: 'DELETE', headers: form }, [404, 405]],
      [
        'a ContentSid off its pattern',
        `${api.url}/2010-04-01/Accounts/${accountSid}/Messages.json`,
        {
          method: 'POST',
          headers: form,
          body: 'To=whatsapp%3A%2B2348031230001&From=whatsapp%3A%2B14155238886&ContentSid=HX1',
        },
        [422],
      ],
      [
        'a message without To',
        `${api.url}/2010-04-01/Accounts/${accountSid}/Messages.json`,
        { method: 'POST', headers: form, body: 'From=%2B15005550006&Body=hi' },
        [422],
      ],
    ];
    for (const [name, url, init, statuses] of planted) {
      const answer = await fetch(url, init);
      await answer.arrayBuffer();
      expect(statuses, name).toContain(answer.status);
    }
  }, 60_000);
});
