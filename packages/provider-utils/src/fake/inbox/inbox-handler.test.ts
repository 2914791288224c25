import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOutbox } from '../fake-outbox.js';
import { serveFake, type FakeServer } from '../serve-fake.js';
import type { FakeInboxSource, FakeInboxUssdSession } from './fake-inbox-source.js';

const attack = `<img src=x onerror="alert(1)"><script>alert('x')</script>`;
let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(extra: Partial<FakeInboxSource> = {}) {
  const outbox = new FakeOutbox();
  server = await serveFake(() => new Response('the fake itself'), 0, { name: 'test', outbox, ...extra });
  return { outbox, server };
}

/** A raw request, so the Host and Origin headers are what a browser on another site would send. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('the inbox page of a fake', () => {
  it('shows each message under its number with its code, and leaves other paths to the fake', async () => {
    const { outbox, server } = await start();
    outbox.push({ channel: 'sms', to: '+2348012345678', from: 'Acme', text: 'Your code is 123456', code: '123456' });
    outbox.push({ channel: 'whatsapp', to: '+2348099999999', text: 'Hello' });
    expect(server.inboxUrl).toBe(`${server.url}/__inbox`);
    const page = await fetch(server.inboxUrl!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('<h3 id="number-2348012345678">+2348012345678');
    expect(html).toContain('<strong class="code" data-code>123456</strong>');
    expect(html).toContain('WhatsApp');
    expect(await (await fetch(`${server.url}/anything`)).text()).toBe('the fake itself');
  });

  it('shows a webhook URL without its query, which may hold a token', async () => {
    const { server } = await start({
      webhooks: () => [
        {
          id: 'msg_1',
          url: 'http://127.0.0.1:9/hooks?token=query-secret-token',
          payload: {},
          attempts: [{ attempt: 1, at: 0, status: 500, retryInMs: 1000 }],
          outcome: 'sending',
        },
      ],
    });
    const html = await (await fetch(server.inboxUrl!)).text();
    expect(html).toContain('http://127.0.0.1:9/hooks');
    expect(html).not.toContain('query-secret-token');
    expect(html).toContain('HTTP 500, retry in 1 s');
  });

  it('escapes a message body, a sender and a number: an XSS attempt is shown as text', async () => {
    const { outbox, server } = await start({
      webhooks: () => [{ id: attack, payload: { status: attack }, attempts: [], outcome: 'not-sent' }],
    });
    outbox.push({ channel: 'sms', to: attack, from: attack, text: attack, code: attack });
    const html = await (await fetch(server.inboxUrl!)).text();
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;',
    );
  });

  it('answers only to a loopback host name, so a rebound DNS name reads nothing', async () => {
    const { server } = await start();
    const evil = await raw(server.inboxUrl!, { headers: { host: `attacker.example:${server.port}` } });
    expect(evil.status).toBe(403);
    const local = await raw(server.inboxUrl!.replace('127.0.0.1', 'localhost'), {
      headers: { host: `localhost:${server.port}` },
    });
    expect(local.status).toBe(200);
  });

  it('dials only from its own origin, and only a pending session', async () => {
    const dialled: string[] = [];
    const session: FakeInboxUssdSession = {
      phoneNumber: '+2348012345678',
      ussdCode: '*384*1234#',
      otp: '4321',
      status: 'pending',
      expiresAt: Date.now() + 60_000,
    };
    const { server } = await start({
      ussdSessions: () => [session],
      dialUssd: (phoneNumber, outcome) => {
        if (phoneNumber !== session.phoneNumber) return false;
        dialled.push(`${phoneNumber} ${outcome}`);
        return true;
      },
    });
    const html = await (await fetch(server.inboxUrl!)).text();
    expect(html).toContain('Dial and enter the OTP');
    const dial = (origin: string | undefined, body = 'phoneNumber=%2B2348012345678&outcome=success') =>
      raw(`${server.url}/__inbox/ussd/dial`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(origin === undefined ? {} : { origin }),
        },
        body,
      });
    expect((await dial(undefined)).status).toBe(403);
    expect((await dial('http://attacker.example')).status).toBe(403);
    expect(dialled).toEqual([]);
    expect((await dial(server.url, 'phoneNumber=%2B2348000000000&outcome=success')).status).toBe(404);
    expect((await dial(server.url, 'phoneNumber=nope&outcome=success')).status).toBe(400);
    expect((await dial(server.url, 'phoneNumber=%2B2348012345678&outcome=maybe')).status).toBe(400);
    const ok = await dial(server.url);
    expect(ok.status).toBe(303);
    expect(dialled).toEqual(['+2348012345678 success']);
  });

  it('streams a change event when a message arrives', async () => {
    const { outbox, server } = await start();
    const controller = new AbortController();
    const response = await fetch(`${server.url}/__inbox/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    seen += (await reader.read()).value;
    outbox.push({ channel: 'sms', to: '+2348012345678', text: 'hi' });
    while (!seen.includes('event: change')) seen += (await reader.read()).value;
    expect(seen).toContain('event: change\ndata: {}');
    controller.abort();
  });
});
