import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVerikit, type FlowView } from '@verikit/core';
import { freshPhoneNumber } from '@verikit/testing';
import { createTwilioProvider, createTwilioStatusCallbackVerifier } from '@verikit/twilio';
import { startTwilioFake, type TwilioFake } from '@verikit/twilio/fake';
import { createFlowHandler } from '../create-flow-handler.js';
import { toNodeHandler } from '../node/node-adapter.js';

// Twilio's status callbacks over real HTTP: the fake posts them as Twilio does (signed forms to the StatusCallback
// URL of each message), the flow handler's webhook route verifies X-Twilio-Signature and hands them to the engine,
// and a failed delivery moves the flow to the next channel of its plan.

const page = readFileSync(new URL('../../../../docs/providers/twilio.md', import.meta.url), 'utf8');
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  vi.unstubAllEnvs();
});

/** The app of docs/providers/twilio.md ("Status callbacks"), configured from the environment as the page says. */
function documentedApp() {
  // snippet:start
  // TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_VERIFY_SERVICE_SID, TWILIO_FROM, TWILIO_WHATSAPP_FROM,
  // TWILIO_WHATSAPP_CONTENT_SID and TWILIO_STATUS_CALLBACK_URL (the public URL of the webhook route) are set
  const provider = createTwilioProvider({ whatsappCodes: 'messaging' });
  const verikit = createVerikit({ provider, secret: process.env.VERIKIT_SECRET! });
  const handler = createFlowHandler({ verikit, webhooks: { scheme: createTwilioStatusCallbackVerifier() } });
  // snippet:end
  return { verikit, handler };
}

/** An app with no approved template yet that allows free text: outside the 24-hour window WhatsApp fails (63016). */
function freeTextApp() {
  const provider = createTwilioProvider({ whatsappCodes: 'messaging', whatsappFreeText: true });
  const verikit = createVerikit({ provider, secret: process.env.VERIKIT_SECRET! });
  const handler = createFlowHandler({ verikit, webhooks: { scheme: createTwilioStatusCallbackVerifier() } });
  return { verikit, handler };
}

async function setupTwilio(app: 'documented' | 'free-text'): Promise<{
  url: string;
  callbackUrl: string;
  fake: TwilioFake;
  verikit: ReturnType<typeof createVerikit>;
  webhookAnswers: number[];
}> {
  const fake = await startTwilioFake({ statusDelayMs: 5 });
  closers.push(() => fake.close());
  let handler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  const webhookAnswers: number[] = [];
  const server = createServer(
    toNodeHandler(async (request: Request) => {
      const response = await handler(request);
      if (new URL(request.url).pathname === '/webhooks') webhookAnswers.push(response.status);
      return response;
    }),
  ).listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const callbackUrl = `${url}/webhooks`;
  const environment = {
    TWILIO_ACCOUNT_SID: fake.settings.accountSid,
    TWILIO_AUTH_TOKEN: fake.settings.authToken,
    TWILIO_VERIFY_SERVICE_SID: fake.settings.verifyServiceSid,
    TWILIO_VERIFY_BASE_URL: fake.settings.verifyBaseUrl,
    TWILIO_API_BASE_URL: fake.settings.apiBaseUrl,
    TWILIO_FROM: '+15005550006',
    TWILIO_WHATSAPP_FROM: '+14155238886',
    TWILIO_WHATSAPP_CONTENT_SID: app === 'documented' ? fake.whatsappContentSid : '',
    TWILIO_STATUS_CALLBACK_URL: callbackUrl,
    VERIKIT_SECRET: 'twilio-receipts-test-secret-0123456789',
  };
  for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value);
  const made = app === 'documented' ? documentedApp() : freeTextApp();
  handler = made.handler;
  return { url, callbackUrl, fake, verikit: made.verikit, webhookAnswers };
}

async function startPhoneFlow(url: string, phoneNumber: string): Promise<FlowView> {
  const started = await fetch(`${url}/flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'phone', phoneNumber, channels: ['whatsapp', 'sms'] }),
  });
  expect(started.status).toBe(201);
  return (await started.json()) as FlowView;
}

describe('docs/providers/twilio.md', () => {
  it('shows the status callback setup exactly as this test runs it', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const start = source.indexOf('// snippet:start\n') + 17;
    const snippet = source.slice(start, source.indexOf('  // snippet:end')).replace(/^ {2}/gm, '');
    expect(page).toContain(snippet.trim());
  });
});

describe('Twilio status callbacks become delivery receipts, and a failed delivery falls back', () => {
  it('WhatsApp outside the 24-hour window fails with 63016; the flow falls back to SMS and the user verifies', async () => {
    const { url, fake, verikit, webhookAnswers } = await setupTwilio('free-text');
    const phoneNumber = freshPhoneNumber();
    const flow = await startPhoneFlow(url, phoneNumber);
    expect(flow).toMatchObject({ channel: 'whatsapp', channelsLeft: ['sms'] });
    await vi.waitFor(
      async () => expect(await verikit.get(flow.id)).toMatchObject({ status: 'awaiting-code', channel: 'sms' }),
      {
        timeout: 5_000,
        interval: 20,
      },
    );
    const view = await verikit.get(flow.id);
    expect(view).toMatchObject({ status: 'awaiting-code', channel: 'sms', channelsLeft: [], sendsLeft: 3 });
    // The WhatsApp code never arrived; the SMS one did, from Verify.
    expect(fake.outbox.filter((message) => message.to === phoneNumber).map((message) => message.channel)).toEqual([
      'sms',
    ]);
    expect(webhookAnswers).toEqual([200]);
    const verified = await verikit.send(flow.id, { type: 'submit-code', code: fake.lastCode(phoneNumber)! });
    expect(verified.status).toBe('verified');
  });

  it('a delivered WhatsApp code is shown as delivered, and the flow stays on WhatsApp', async () => {
    // A template reaches the user whether or not they wrote in the last 24 hours.
    const { url, fake, verikit, webhookAnswers } = await setupTwilio('documented');
    const phoneNumber = freshPhoneNumber();
    const flow = await startPhoneFlow(url, phoneNumber);
    await vi.waitFor(async () => expect((await verikit.get(flow.id)).delivery?.status).toBe('delivered'), {
      timeout: 5_000,
      interval: 20,
    });
    expect(await verikit.get(flow.id)).toMatchObject({ channel: 'whatsapp', channelsLeft: ['sms'] });
    // `sent` is acknowledged and ignored (202); `delivered` is applied.
    expect(webhookAnswers).toEqual([202, 200]);
    const code = fake.lastCode(phoneNumber)!;
    expect((await verikit.send(flow.id, { type: 'submit-code', code })).status).toBe('verified');
  });

  it('an attacker: a forged, unsigned or foreign-signed "failed" callback moves nothing', async () => {
    const { url, callbackUrl, fake, verikit, webhookAnswers } = await setupTwilio('documented');
    const flow = await startPhoneFlow(url, freshPhoneNumber());
    await fake.messagesSettled();
    const messageSid = fake.statusCallbacks.at(-1)!.messageSid;
    const forged = new URLSearchParams({
      AccountSid: fake.settings.accountSid,
      MessageSid: messageSid,
      MessageStatus: 'failed',
      ErrorCode: '63016',
    }).toString();
    const post = (headers: Record<string, string>, body = forged) =>
      fetch(`${url}/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      }).then((response) => response.status);
    expect(await post({})).toBe(401);
    expect(await post({ 'x-twilio-signature': 'bm90IGEgc2lnbmF0dXJl' })).toBe(401);
    // Signed with another token (an attacker's own account) for the same URL.
    const { createHmac } = await import('node:crypto');
    const fields = Object.fromEntries(new URLSearchParams(forged));
    const signed = Object.keys(fields)
      .sort()
      .reduce((text, key) => text + key + fields[key], callbackUrl);
    const attackerSignature = createHmac('sha1', 'attacker-auth-token').update(signed).digest('base64');
    expect(await post({ 'x-twilio-signature': attackerSignature })).toBe(401);
    const view = await verikit.get(flow.id);
    expect(view).toMatchObject({ channel: 'whatsapp', channelsLeft: ['sms'], sendsLeft: 4 });
    expect(view.error).toBeUndefined();
    expect(webhookAnswers).toEqual([202, 200, 401, 401, 401]);
  });
});
