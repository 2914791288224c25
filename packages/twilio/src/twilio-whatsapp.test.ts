import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidInputError, silentLogger, type ProviderCallContextV1, type RawWebhookV1 } from '@verikit/provider';
import { freshPhoneNumber } from '@verikit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTwilioProvider } from './create-twilio-provider.js';
import { startTwilioFake, twilioMagicNumbers, type TwilioFake } from './fake/index.js';
import { createTwilioStatusCallbackVerifier, parseTwilioStatusCallback } from './twilio-status-callback.js';
import type { TwilioProviderSettings } from './twilio-settings.js';

const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});
const undeliverable = Object.entries(twilioMagicNumbers).find(([, value]) => value === 'undelivered')![0];

// A local endpoint standing in for the app's webhook route: it keeps every callback as received.
let fake: TwilioFake;
let contentSid: string;
let server: Server;
let callbackUrl: string;
const received: RawWebhookV1[] = [];
const wire: Array<Record<string, string>> = [];
const recordingFetch: typeof fetch = (input, init) => {
  wire.push(Object.fromEntries(new URLSearchParams(String(init?.body))));
  return fetch(input, init);
};

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      received.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
      response.end();
    });
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  callbackUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/verikit/webhooks?source=twilio`;
  fake = await startTwilioFake({ statusDelayMs: 1 });
  contentSid = fake.whatsappContentSid;
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(async () => {
  await fake.messagesSettled();
  received.length = 0;
  wire.length = 0;
});

const twilio = (overrides: Partial<TwilioProviderSettings> = {}) =>
  createTwilioProvider({
    ...fake.settings,
    whatsappFrom: '+14155238886',
    statusCallbackUrl: callbackUrl,
    fetch: recordingFetch,
    ...overrides,
  });
const statusesOf = (webhooks: readonly RawWebhookV1[], messageSid?: string) =>
  webhooks
    .map((webhook) => new URLSearchParams(webhook.body))
    .filter((form) => messageSid === undefined || form.get('MessageSid') === messageSid)
    .map((form) => form.get('MessageStatus'));

describe('twilio: WhatsApp through an approved template, free text only when the app allows it', () => {
  it('sends ContentSid and ContentVariables (never Body) with the StatusCallback; the template reaches the user', async () => {
    const to = freshPhoneNumber();
    const { messageId } = await twilio({ whatsappContentSid: contentSid }).whatsapp!.send(
      { phoneNumber: to, message: '482913' },
      context(),
    );
    expect(wire.at(-1)).toEqual({
      To: `whatsapp:${to}`,
      From: 'whatsapp:+14155238886',
      ContentSid: contentSid,
      ContentVariables: '{"1":"482913"}',
      StatusCallback: callbackUrl,
    });
    expect(fake.lastMessage(to)).toBe('482913 is your verification code. For your security, do not share this code.');
    await fake.messagesSettled();
    expect(fake.statusCallbacks.filter((each) => each.messageSid === messageId)).toEqual([
      { messageSid: messageId, status: 'sent', answered: 200 },
      { messageSid: messageId, status: 'delivered', answered: 200 },
    ]);
  });

  it('refuses WhatsApp without a template unless free text is allowed, before any request', async () => {
    const error = await twilio()
      .whatsapp!.send({ phoneNumber: freshPhoneNumber(), message: 'Hi' }, context())
      .catch((caught: unknown) => caught);
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ field: 'whatsappContentSid' });
    expect(wire).toEqual([]);
  });

  it('free text outside the 24-hour window is accepted, then fails with 63016, as Twilio does', async () => {
    const to = freshPhoneNumber();
    const { messageId } = await twilio({ whatsappFreeText: true }).whatsapp!.send(
      { phoneNumber: to, message: 'Your code is 482913' },
      context(),
    );
    expect(messageId).toMatch(/^SM[0-9a-f]{32}$/);
    await fake.messagesSettled();
    expect(fake.lastMessage(to)).toBeUndefined();
    // The message resource says failed, with the error code; the status callback says so, signed.
    const answer = await fetch(
      `${fake.url}/2010-04-01/Accounts/${fake.settings.accountSid}/Messages/${messageId}.json`,
      {
        headers: { authorization: `Basic ${btoa(`${fake.settings.accountSid}:${fake.settings.authToken}`)}` },
      },
    );
    expect(await answer.json()).toMatchObject({ sid: messageId, status: 'failed', error_code: 63016 });
    expect(statusesOf(received)).toEqual(['failed']);
    const verify = createTwilioStatusCallbackVerifier({ url: callbackUrl, authToken: fake.settings.authToken });
    expect(verify.verify(received[0]!)).toEqual({ id: `${messageId}:failed` });
    expect(parseTwilioStatusCallback(received[0]!)).toEqual({
      type: 'delivery',
      messageId,
      status: 'undelivered',
      reason: 'twilio:63016',
    });
  });

  it("refuses content Twilio refuses: variables without a template, another account's template, bad variables", async () => {
    const post = (fields: Record<string, string>) =>
      fetch(`${fake.url}/2010-04-01/Accounts/${fake.settings.accountSid}/Messages.json`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${btoa(`${fake.settings.accountSid}:${fake.settings.authToken}`)}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ To: `whatsapp:${freshPhoneNumber()}`, From: 'whatsapp:+14155238886', ...fields }),
      }).then(async (answer) => [answer.status, ((await answer.json()) as { code: number }).code]);
    expect(await post({ ContentVariables: '{"1":"x"}' })).toEqual([400, 21654]);
    expect(await post({ ContentSid: `HX${'0'.repeat(32)}` })).toEqual([400, 21655]);
    for (const variables of ['not json', '["x"]', '{"1":7}', '{"1":""}'])
      expect(await post({ ContentSid: contentSid, ContentVariables: variables })).toEqual([400, 21656]);
  });

  it('free text within the window reaches the user', async () => {
    const to = freshPhoneNumber();
    fake.openWhatsAppWindow(to);
    await twilio({ whatsappFreeText: true }).whatsapp!.send({ phoneNumber: to, message: 'Hello again' }, context());
    await fake.messagesSettled();
    expect(fake.lastMessage(to)).toBe('Hello again');
    expect(statusesOf(received)).toEqual(['sent', 'delivered']);
  });

  it("an unreachable handset: sent, then undelivered with 30003; a Messaging Service's message is queued first", async () => {
    const lost = await twilio().sms!.send({ from: '+15005550006', to: undeliverable, message: 'x' }, context());
    const serviced = await twilio({ messagingServiceSid: `MG${'1'.repeat(32)}` }).sms!.send(
      { to: freshPhoneNumber(), message: 'y' },
      context(),
    );
    await fake.messagesSettled();
    expect(statusesOf(received, lost.messageId)).toEqual(['sent', 'undelivered']);
    expect(statusesOf(received, serviced.messageId)).toEqual(['queued', 'sent', 'delivered']);
    const last = received.filter((webhook) => webhook.body.includes(lost.messageId!)).at(-1)!;
    expect(parseTwilioStatusCallback(last)).toMatchObject({ status: 'undelivered', reason: 'twilio:30003' });
  });
});

describe('twilio: WhatsApp codes through Programmable Messaging (whatsappCodes: messaging)', () => {
  it('sends a code of ours in the template, returns the message SID, and checks the code with no request', async () => {
    const provider = twilio({ whatsappCodes: 'messaging', whatsappContentSid: contentSid });
    const to = freshPhoneNumber();
    const sent = await provider.phone!.send({ phoneNumber: to, channel: 'whatsapp' }, context());
    expect(sent.requestId).toMatch(/^twa1\./);
    expect(sent.messageId).toMatch(/^SM[0-9a-f]{32}$/);
    const code = fake.lastCode(to)!;
    expect(wire.at(-1)).toMatchObject({ ContentSid: contentSid, ContentVariables: JSON.stringify({ 1: code }) });
    // Neither the code nor the number is in the requestId.
    expect(sent.requestId).not.toContain(code);
    expect(sent.requestId).not.toContain(to.slice(1));
    const requests = wire.length;
    const wrong = code === '000000' ? '111111' : '000000';
    await expect(provider.phone!.check({ requestId: sent.requestId, code: wrong }, context())).resolves.toEqual({
      valid: false,
    });
    const altered = `${sent.requestId.slice(0, -2)}AA`;
    await expect(provider.phone!.check({ requestId: altered, code }, context())).resolves.toEqual({ valid: false });
    // A provider with another auth token cannot vouch for it.
    await expect(
      twilio({ whatsappCodes: 'messaging', authToken: 'another-token' }).phone!.check(
        { requestId: sent.requestId, code },
        context(),
      ),
    ).resolves.toEqual({ valid: false });
    await expect(provider.phone!.check({ requestId: sent.requestId, code }, context())).resolves.toEqual({
      valid: true,
    });
    expect(wire).toHaveLength(requests);
  });

  it('the provider parses status callbacks only when it sends a StatusCallback', () => {
    expect(twilio().webhooks).toBeDefined();
    expect(twilio({ statusCallbackUrl: undefined }).webhooks).toBeUndefined();
  });
});

describe('twilio status callbacks: forged or malformed ones are refused (an attacker)', () => {
  const sid = `SM${'a'.repeat(32)}`;
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

  it('refuses an unsigned callback, another token, another URL, and a body changed after signing', async () => {
    await twilio({ whatsappFreeText: true }).whatsapp!.send(
      { phoneNumber: freshPhoneNumber(), message: 'Your code is 123456' },
      context(),
    );
    await fake.messagesSettled();
    const genuine = received[0]!;
    const verifier = (overrides: { url?: string; authToken?: string } = {}) =>
      createTwilioStatusCallbackVerifier({ url: callbackUrl, authToken: fake.settings.authToken, ...overrides });
    expect(() => verifier().verify(genuine)).not.toThrow();
    const unsigned = { body: genuine.body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    const tampered = { ...genuine, body: genuine.body.replace('MessageStatus=failed', 'MessageStatus=delivered') };
    expect(tampered.body).not.toBe(genuine.body);
    expect(() => verifier().verify(unsigned)).toThrow(/X-Twilio-Signature/);
    expect(() => verifier().verify(tampered)).toThrow(/X-Twilio-Signature/);
    expect(() => verifier({ authToken: 'attacker-token' }).verify(genuine)).toThrow(/X-Twilio-Signature/);
    expect(() => verifier({ url: `${callbackUrl}&flow=other` }).verify(genuine)).toThrow(/X-Twilio-Signature/);
    expect(() =>
      verifier().verify({ body: genuine.body, headers: { 'x-twilio-signature': 'A'.repeat(28) } }),
    ).toThrow();
  });

  it('reads delivered, failed and undelivered; ignores statuses on the way; refuses malformed bodies naming the field', () => {
    const parse = (fields: Record<string, string>) => parseTwilioStatusCallback({ body: form(fields), headers: {} });
    expect(parse({ MessageSid: sid, MessageStatus: 'delivered', To: '+2348031234567' })).toEqual({
      type: 'delivery',
      messageId: sid,
      status: 'delivered',
    });
    expect(parse({ MessageSid: sid, MessageStatus: 'undelivered', ErrorCode: '30003' })).toMatchObject({
      reason: 'twilio:30003',
    });
    expect(parse({ MessageSid: sid, MessageStatus: 'failed' })).toMatchObject({ reason: 'twilio:failed' });
    for (const status of ['queued', 'sent', 'read', 'accepted'])
      expect(parse({ MessageSid: sid, MessageStatus: status })).toBeNull();
    for (const [fields, field] of [
      [{ MessageStatus: 'delivered' }, 'MessageSid'],
      [{ MessageSid: 'SM1', MessageStatus: 'delivered' }, 'MessageSid'],
      [{ MessageSid: sid, MessageStatus: 'exploded' }, 'MessageStatus'],
      [{ MessageSid: sid, MessageStatus: 'failed', ErrorCode: '30003; DROP' }, 'ErrorCode'],
    ] as const) {
      const error = (() => {
        try {
          return parse(fields);
        } catch (caught) {
          return caught;
        }
      })();
      expect(InvalidInputError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ field });
    }
  });

  it('bad verifier options name the option', () => {
    expect(() => createTwilioStatusCallbackVerifier({ url: 'ftp://example.com/x', authToken: 't' })).toThrow(
      expect.objectContaining({ field: 'url' }),
    );
    expect(() => createTwilioStatusCallbackVerifier({ url: 'https://u:p@example.com/x', authToken: 't' })).toThrow(
      expect.objectContaining({ field: 'url' }),
    );
    expect(() => createTwilioStatusCallbackVerifier({ surprise: true } as never)).toThrow(InvalidInputError);
  });
});
