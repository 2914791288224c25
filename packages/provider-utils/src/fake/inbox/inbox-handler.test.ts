import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOutbox } from '../fake-outbox.js';
import { serveFake, type FakeServer } from '../serve-fake.js';
import type {
  FakeInboxDialIn,
  FakeInboxDialInSession,
  FakeInboxSource,
  FakeInboxUssdSession,
} from './fake-inbox-source.js';

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

  describe('dial-in USSD (a phone dials the service code, the fake posts the session to the app)', () => {
    /** A dial-in source whose app answers END with the text dialled, or CON for the bare service code. */
    function dialInSource(): FakeInboxDialIn & { calls: string[] } {
      const sessions: FakeInboxDialInSession[] = [];
      const calls: string[] = [];
      return {
        calls,
        serviceCode: '*384*1234#',
        callbackUrl: () => 'http://127.0.0.1:9/ussd?token=query-secret-token',
        sessions: () => sessions.toReversed(),
        async dial(phoneNumber, code) {
          calls.push(`dial ${phoneNumber} ${code}`);
          if (!code.startsWith('*384*1234')) throw new TypeError('code must be *384*1234#, or it with more digits');
          const open = code === '*384*1234#';
          const session: FakeInboxDialInSession = {
            sessionId: `ATUid_${sessions.length}`,
            phoneNumber,
            code,
            inputs: open ? [] : [code.slice(10, -1)],
            screen: open ? 'Enter your reference' : `${attack} confirmed`,
            state: open ? 'open' : 'ended',
            at: Date.now(),
          };
          sessions.push(session);
          return session;
        },
        async reply(sessionId, input) {
          calls.push(`reply ${sessionId} ${input}`);
          const index = sessions.findIndex((session) => session.sessionId === sessionId);
          if (sessions[index]?.state !== 'open') throw new TypeError('no open USSD session with that id');
          sessions[index] = { ...sessions[index], inputs: [input], screen: 'Thank you', state: 'ended' };
          return sessions[index];
        },
      };
    }
    const post = (path: string, origin: string | undefined, body: string, json = true) =>
      raw(`${server!.url}/__inbox/ussd/${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(json ? { accept: 'application/json' } : {}),
          ...(origin === undefined ? {} : { origin }),
        },
        body,
      });

    it('offers a labelled dial form that starts with the service code, and no session yet', async () => {
      const { server } = await start({ dialIn: dialInSource() });
      const html = await (await fetch(server.inboxUrl!)).text();
      expect(html).toContain('<label for="dial-phone">Phone number</label>');
      expect(html).toContain(
        '<input id="dial-code" name="code" type="text" autocomplete="off" required value="*384*1234#"',
      );
      expect(html).toContain('No session yet.');
      // The form is outside the content the script swaps, so what is typed in it stays.
      expect(html.indexOf('id="dial-phone"')).toBeLessThan(html.indexOf('id="inbox-content"'));
      expect(html).toContain('Sessions are posted to <code>http://127.0.0.1:9/ussd</code>');
      expect(html).not.toContain('query-secret-token');
    });

    it('dials only from its own origin, checks the number and the code, and answers the screen the app sent', async () => {
      const source = dialInSource();
      const { server } = await start({ dialIn: source });
      const form = 'phoneNumber=%2B254711000001&code=*384*1234*583921%23';
      expect((await post('dial-in', undefined, form)).status).toBe(403);
      expect((await post('dial-in', 'http://attacker.example', form)).status).toBe(403);
      expect((await post('dial-in', server.url, 'phoneNumber=254711&code=*384*1234%23')).status).toBe(400);
      expect((await post('dial-in', server.url, 'phoneNumber=%2B254711000001&code=abc')).status).toBe(400);
      expect(source.calls).toEqual([]);
      const other = await post('dial-in', server.url, 'phoneNumber=%2B254711000001&code=*555%23');
      expect(other).toEqual({ status: 400, body: 'code must be *384*1234#, or it with more digits.' });
      const dialled = await post('dial-in', server.url, form);
      expect(dialled.status).toBe(200);
      expect(JSON.parse(dialled.body)).toEqual({
        dialled: true,
        message: `Ended by the application. Screen: ${attack} confirmed`,
      });
      expect((await post('dial-in', server.url, form, false)).status).toBe(303);
      const html = await (await fetch(server.inboxUrl!)).text();
      expect(html).toContain('+254711000001 dialled <strong class="ussd-code">*384*1234*583921#</strong>');
      expect(html).toContain('ended by the application');
      expect(html).not.toContain('<img');
    });

    it('offers a reply form for an open session only, and replies to it', async () => {
      const source = dialInSource();
      const { server } = await start({ dialIn: source });
      await post('dial-in', server.url, 'phoneNumber=%2B254711000001&code=*384*1234%23');
      let html = await (await fetch(`${server.url}/__inbox/content`)).text();
      expect(html).toContain('waiting for a reply');
      expect(html).toContain('<label for="session-ATUid0-input">Reply</label>');
      expect((await post('reply', 'http://attacker.example', 'sessionId=ATUid_0&input=583921')).status).toBe(403);
      expect((await post('reply', server.url, 'sessionId=ATUid_0&input=')).status).toBe(400);
      const replied = await post('reply', server.url, 'sessionId=ATUid_0&input=583921');
      expect(JSON.parse(replied.body)).toMatchObject({ message: 'Ended by the application. Screen: Thank you' });
      expect(source.calls).toEqual(['dial +254711000001 *384*1234#', 'reply ATUid_0 583921']);
      html = await (await fetch(`${server.url}/__inbox/content`)).text();
      expect(html).not.toContain('session-ATUid0-input');
      expect((await post('reply', server.url, 'sessionId=ATUid_0&input=1')).body).toBe(
        'no open USSD session with that id.',
      );
    });

    it('says a fake without dial-in takes none, and shows callbacks with what the app answered', async () => {
      const { server } = await start({
        webhooksTitle: 'Callbacks',
        webhooks: () => [
          {
            id: 'ATUid_1',
            url: 'http://127.0.0.1:9/ussd',
            payload: { text: '' },
            attempts: [{ attempt: 1, at: 0, status: 200, answer: `CON ${attack}` }],
            outcome: 'delivered',
          },
        ],
      });
      expect((await post('dial-in', server.url, 'phoneNumber=%2B254711000001&code=*384%23')).status).toBe(404);
      const html = await (await fetch(server.inboxUrl!)).text();
      expect(html).toContain('<h2 id="webhooks-heading">Callbacks</h2>');
      expect(html).toContain('HTTP 200 <q class="answer">CON &lt;img');
      expect(html).not.toContain('id="dial-phone"');
    });
  });
});
