/**
 * A delivery receipt that makes a phone flow fall back is answered once the fallback is due in the flow's record, and
 * the flow's timer sends it after (decisions 1311 and 1561): over real HTTP (Twilio's fake as the provider, made slow; the flow handler's webhook route
 * with Twilio's signature check), two engine instances on one real Redis. Mandatory when CI=true; skipped, with the
 * reason printed, when Redis is unreachable and CI is not set.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerikit, type FlowView, type Verikit } from '@verikit/core';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import type { RawWebhookV1 } from '@verikit/provider';
import { createRedisStore } from '@verikit/redis';
import { createTwilioProvider, createTwilioStatusCallbackVerifier } from '@verikit/twilio';
import { startTwilioFake, twilioMagicNumbers, type TwilioFake } from '@verikit/twilio/fake';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skip = await redisSkipReason('fallback after the answer');
const undeliverable = Object.entries(twilioMagicNumbers).find(([, value]) => value === 'undelivered')![0];
const secret = 'fallback-after-answer-secret-0123456789';

let fake: TwilioFake;
let inbox: Server;
let callbackUrl: string;
const callbacks: RawWebhookV1[] = [];
const closers: Array<() => Promise<unknown>> = [];

/** Where the fake posts status callbacks: kept as received, so the test delivers them to the instance it chooses. */
async function startInbox(): Promise<void> {
  inbox = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      callbacks.push({ body: Buffer.concat(chunks).toString('utf8'), headers });
      response.end();
    });
  }).listen(0, '127.0.0.1');
  await once(inbox, 'listening');
  callbackUrl = `http://127.0.0.1:${(inbox.address() as AddressInfo).port}/webhooks`;
}

/** One app instance: its own Redis connection, engine, and flow handler on a local server. */
async function instance(
  namespace: string,
  effectTimeoutMs: number,
  fetchOverride?: typeof fetch,
  timers?: { pollMs: number },
) {
  const store = createRedisStore({ url: redisUrl, namespace });
  const provider = createTwilioProvider({
    ...fake.settings,
    from: '+15005550006',
    whatsappFrom: '+14155238886',
    whatsappContentSid: fake.whatsappContentSid,
    whatsappCodes: 'messaging',
    statusCallbackUrl: callbackUrl,
    ...(fetchOverride ? { fetch: fetchOverride } : {}),
  });
  const policies = { effectTimeoutMs, resendCooldownMs: 500, maxSendsPerHour: 100 };
  const verikit = createVerikit({ provider, secret, store, policies, ...(timers ? { timers } : {}) });
  const handler = createFlowHandler({
    verikit,
    webhooks: {
      scheme: createTwilioStatusCallbackVerifier({ url: callbackUrl, authToken: fake.settings.authToken }),
    },
  });
  const server = createServer(toNodeHandler(handler)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
  };
  closers.push(close);
  return { verikit, store, close, url };
}

/** Delivers a status callback as Twilio would: to the public callback URL's path, on the instance given. */
function deliver(url: string, webhook: RawWebhookV1): Promise<Response> {
  return fetch(`${url}/webhooks`, { method: 'POST', headers: webhook.headers, body: webhook.body });
}

/** Starts a WhatsApp-then-SMS flow for the undeliverable number; returns it and Twilio's `undelivered` callback. */
async function failedWhatsApp(verikit: Verikit): Promise<{ flow: FlowView; undelivered: RawWebhookV1 }> {
  callbacks.length = 0;
  const flow = await verikit.start({ kind: 'phone', phoneNumber: undeliverable, channels: ['whatsapp', 'sms'] });
  await fake.messagesSettled();
  const undelivered = callbacks.find((each) => /MessageStatus=undelivered/.test(each.body))!;
  expect(undelivered).toBeDefined();
  return { flow, undelivered };
}

/** Verify's sends the fake answered (`POST …/Verifications`), counted as they are answered. */
function verifySends(): { count: () => number; stop: () => void } {
  let count = 0;
  const stop = fake.onRequest((request) => {
    if (request.method === 'POST' && request.path.endsWith('/Verifications')) count += 1;
  });
  return { count: () => count, stop };
}

const settledOn = (verikit: Verikit, flowId: string, status: FlowView['status']) =>
  vi.waitFor(async () => expect((await verikit.get(flowId)).status).toBe(status), { timeout: 10_000, interval: 25 });

describe.skipIf(skip !== undefined)('a receipt’s fallback is sent after the webhook is answered (real Redis)', () => {
  const namespace = uniqueNamespace('fallback-after-answer');
  beforeAll(async () => {
    fake = await startTwilioFake({ statusDelayMs: 1 });
    await startInbox();
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await fake?.close();
    if (inbox) await new Promise((resolve) => inbox.close(resolve));
    await deleteNamespace(namespace);
  });

  it('a slow fallback provider does not hold the answer; redeliveries on another instance send nothing more', async () => {
    const a = await instance(namespace, 10_000);
    const b = await instance(namespace, 10_000);
    const { flow, undelivered } = await failedWhatsApp(a.verikit);
    const sends = verifySends();
    // The SMS fallback goes to Verify, which now answers after 2 s (within the engine's 10 s deadline).
    fake.setLatency(2_000);
    try {
      const answer = await deliver(a.url, undelivered);
      // Answered while Verify has not answered the fallback: the send no longer runs inside the webhook's request.
      expect(sends.count()).toBe(0);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toMatchObject({ status: 'applied', flowId: flow.id });
      // Twilio retries the callback on the other instance: the same delivery id, a duplicate; nothing is sent.
      const again = await deliver(b.url, undelivered);
      expect(again.status).toBe(200);
      expect(await again.json()).toMatchObject({ status: 'duplicate' });
      await vi.waitFor(
        async () => expect(await b.verikit.get(flow.id)).toMatchObject({ status: 'awaiting-code', channel: 'sms' }),
        { timeout: 10_000, interval: 25 },
      );
      expect(sends.count()).toBe(1);
    } finally {
      fake.setLatency(0);
      sends.stop();
    }
    expect(await b.verikit.get(flow.id)).toMatchObject({ channel: 'sms', sendsLeft: 3 });
    const verified = await b.verikit.send(flow.id, { type: 'submit-code', code: fake.lastCode(undeliverable)! });
    expect(verified.status).toBe('verified');
  });

  it('an instance that dies with the fallback on the wire leaves no flow stuck: maybe sent, then a resend', async () => {
    // Instance A's sends never come back (as a process killed with its request on the wire): a fetch that never settles.
    let requested = 0;
    const dead = await instance(namespace, 1_000, () => {
      requested += 1;
      return new Promise<Response>(() => undefined);
    });
    // B polls no timers: the fallback is A's to claim (else, on a loaded machine, B's poll could claim it first).
    const b = await instance(namespace, 1_000, undefined, { pollMs: 0 });
    // The flow's first send goes through B; A only receives the receipt.
    const { flow, undelivered } = await failedWhatsApp(b.verikit);
    const sends = verifySends();
    try {
      const answer = await deliver(dead.url, undelivered);
      expect(answer.status).toBe(200);
      // A's timer claimed the fallback and made the request; A dies then: nothing of it is written any more.
      await vi.waitFor(() => expect(requested).toBe(1), { timeout: 30_000, interval: 25 });
      await dead.close();
      expect(await b.verikit.get(flow.id)).toMatchObject({ status: 'sending', channel: 'sms' });
      // Past the committed effect's deadline, any read moves the flow on: the send may have left (decision 0920),
      // so it is not repeated by itself; the user may resend once the cooldown has passed.
      await settledOn(b.verikit, flow.id, 'send-failed');
      const failed = await b.verikit.get(flow.id);
      expect(failed).toMatchObject({ channel: 'sms', error: { code: 'outcome_unknown' } });
      expect(sends.count()).toBe(0);
      await vi.waitFor(async () => expect((await b.verikit.get(flow.id)).allowed).toContain('resend'), {
        timeout: 10_000,
        interval: 50,
      });
      const resent = await b.verikit.send(flow.id, { type: 'resend' });
      expect(resent).toMatchObject({ status: 'awaiting-code', channel: 'sms' });
      expect(sends.count()).toBe(1);
    } finally {
      sends.stop();
    }
  }, 30_000);
});
