import { silentLogger } from '@verikit/provider';
import { serveFake, type FakeServer } from '@verikit/provider-utils/fake';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAfricasTalkingProvider, parseUssdSession, ussdResponse } from '../index.js';
import { startAfricasTalkingFake, type AfricasTalkingFake } from './index.js';

// The Africa's Talking fake's inbox page over real HTTP: the SMS it took, the dial form that plays the phone,
// the sessions and the callbacks it posted with the application's answers.
describe("the Africa's Talking fake's inbox", () => {
  let app: FakeServer;
  let fake: AfricasTalkingFake;
  const received: URLSearchParams[] = [];
  let answer: (form: URLSearchParams) => Response;
  beforeAll(async () => {
    app = await serveFake(async (request) => {
      const form = new URLSearchParams(await request.text());
      received.push(form);
      return answer(form);
    });
    fake = await startAfricasTalkingFake({ callbackUrl: `${app.url}/ussd`, deliveryReportUrl: `${app.url}/reports` });
  });
  afterAll(async () => {
    await fake.close();
    await app.close();
  });
  afterEach(() => {
    received.length = 0;
    fake.reset();
  });

  /** A form post from the inbox page itself (its origin), as its script sends it. */
  const post = async (path: string, fields: Record<string, string>) => {
    const response = await fetch(`${fake.url}/__inbox/ussd/${path}`, {
      method: 'POST',
      headers: { origin: fake.url, accept: 'application/json' },
      body: new URLSearchParams(fields),
    });
    return { status: response.status, body: await response.text() };
  };
  const content = async () => (await fetch(`${fake.url}/__inbox/content`)).text();

  it('is served, and shows an SMS under its number with the code its text carries', async () => {
    expect(fake.inboxUrl).toBe(`${fake.url}/__inbox`);
    answer = () => new Response(null, { status: 200 });
    await createAfricasTalkingProvider(fake.settings).sms!.send(
      { to: '+254711000201', message: 'Your Acme code is 583921. It expires in 10 minutes.' },
      { signal: new AbortController().signal, idempotencyKey: 'k', logger: silentLogger },
    );
    expect(fake.lastCode('+254711000201')).toBe('583921');
    const page = await (await fetch(fake.inboxUrl!)).text();
    expect(page).toContain('What the phones received from the Africa&#39;s Talking fake');
    expect(page).toContain('<h3 id="number-254711000201">+254711000201');
    expect(page).toContain('<strong class="code" data-code>583921</strong>');
    // The delivery report it then posts is a callback, with the application's answer.
    await vi.waitFor(async () =>
      expect(await content()).toMatch(
        /<code>ATXid_[0-9a-f]+<\/code> to <code>http:\/\/127\.0\.0\.1:\d+\/reports<\/code>/,
      ),
    );
    expect(await content()).toContain('Attempt 1 ');
  });

  it('dials the service code from the page as the phone would, and shows the session and the callback answered', async () => {
    answer = (form) =>
      form.get('text') === ''
        ? ussdResponse('CON', 'Enter your reference')
        : ussdResponse('END', 'Your number is confirmed');
    const dialled = await post('dial-in', { phoneNumber: '+254711000202', code: '*384*1234#' });
    expect(dialled.status).toBe(200);
    expect(JSON.parse(dialled.body)).toEqual({
      dialled: true,
      message: 'Waiting for a reply. Screen: Enter your reference',
    });
    const session = parseUssdSession(received[0]!.toString());
    expect(session).toMatchObject({ serviceCode: '*384*1234#', phoneNumber: '+254711000202', text: '' });
    let html = await content();
    expect(html).toContain('+254711000202 dialled <strong class="ussd-code">*384*1234#</strong>');
    expect(html).toContain('<h2 id="webhooks-heading">Callbacks</h2>');
    expect(html).toContain('HTTP 200 <q class="answer">CON Enter your reference</q>');
    // The screens are the session's, not messages.
    expect(html).toContain('data-messages="0"');
    const replied = await post('reply', { sessionId: session.sessionId, input: '583921' });
    expect(JSON.parse(replied.body)).toMatchObject({
      message: 'Ended by the application. Screen: Your number is confirmed',
    });
    expect(received[1]!.get('text')).toBe('583921');
    html = await content();
    expect(html).toContain('typed <code>583921</code>');
    expect(html).not.toContain('name="input"');
    expect((await post('reply', { sessionId: session.sessionId, input: '1' })).body).toBe(
      'no open USSD session with that id.',
    );
  });

  it('shows a session the network ended, and a callback the application refused', async () => {
    answer = () => new Response('nope', { status: 500 });
    const dialled = await post('dial-in', { phoneNumber: '+254711000203', code: '*384*1234*583921#' });
    expect(JSON.parse(dialled.body)).toMatchObject({
      message: 'Ended: the application answered an HTTP error.',
    });
    const html = await content();
    expect(html).toContain('<span class="outcome outcome-failed">gave up</span>');
    expect(html).toContain('HTTP 500 <q class="answer">nope</q>');
    expect(received[0]!.get('text')).toBe('583921');
    expect((await post('dial-in', { phoneNumber: '+254711000203', code: '*999#' })).status).toBe(400);
  });

  it('says a dial needs a callback URL when the fake has none', async () => {
    const bare = await startAfricasTalkingFake();
    try {
      expect(await (await fetch(bare.inboxUrl!)).text()).toContain('No callback URL yet');
      const response = await fetch(`${bare.url}/__inbox/ussd/dial-in`, {
        method: 'POST',
        headers: { origin: bare.url },
        body: new URLSearchParams({ phoneNumber: '+254711000204', code: '*384*1234#' }),
      });
      expect(response.status).toBe(400);
      expect(await response.text()).toBe('the fake has no callbackUrl to post USSD sessions to.');
    } finally {
      await bare.close();
    }
  });
});
