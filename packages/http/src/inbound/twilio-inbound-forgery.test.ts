import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createVerikit, defaultProofMethods, ProofRejectedError, type FlowView, type Verikit } from '@verikit/core';
import type { Logger } from '@verikit/provider';
import { freshPhoneNumber } from '@verikit/testing';
import { createTwilioInboundMessageVerifier, createTwilioProvider, parseTwilioInboundMessage } from '@verikit/twilio';
import { startTwilioFake, type TwilioFake } from '@verikit/twilio/fake';
import { createFlowHandler } from '../create-flow-handler.js';
import { createWebhookHandler } from '../webhooks/create-webhook-handler.js';
import { toNodeHandler } from '../node/node-adapter.js';

// The forgery suite of a plan's inbound step (decision 1695), over real HTTP: Twilio's incoming-message requests,
// signed as Twilio signs them (X-Twilio-Signature computed by twilio-node 6.3.1 itself, over the configured URL and
// the form fields), reach `createWebhookHandler` with `createTwilioInboundMessageVerifier` and
// `parseTwilioInboundMessage`. A genuine message from the number with the reference verifies the flow and sends
// nothing; every forgery below verifies nothing, and the flow stays where it was.

const smsNumber = '+15005550006';
const whatsappNumber = '+14155238886';
const authToken = 'twilio-inbound-forgery-auth-token';
const lines: string[] = [];
const logger: Logger = Object.fromEntries(
  (['debug', 'info', 'warn', 'error'] as const).map((level) => [
    level,
    (message: string, fields?: Record<string, unknown>) => lines.push(`${message} ${JSON.stringify(fields ?? {})}`),
  ]),
) as unknown as Logger;

let fake: TwilioFake;
let verikit: Verikit;
let inboundUrl: string;
let baseUrl: string;
/** The methods the app's signup endpoint (`POST /signup`) passes to `redeemProof`; undefined: verikit's default. */
let signupMethods: Parameters<Verikit['redeemProof']>[2];
let close: () => Promise<void>;

beforeAll(async () => {
  fake = await startTwilioFake({ authToken });
  const provider = createTwilioProvider({
    ...fake.settings,
    from: smsNumber,
    whatsappFrom: whatsappNumber,
  });
  // Every start here is a fresh number of one range: the per-prefix count of starts would refuse the tenth.
  verikit = createVerikit({
    provider,
    secret: 'inbound-forgery-suite-secret-0123456789',
    logger,
    guard: { perPrefix: false },
  });
  let handler: (request: Request) => Promise<Response> = async () => new Response(null, { status: 503 });
  // Beside Twilio's route, what a browser (or an attacker) reaches: the flow routes, and the app's signup endpoint.
  const flows = createFlowHandler({ verikit, logger });
  const route = (request: Request) => {
    const path = new URL(request.url).pathname;
    if (path === '/twilio/inbound') return handler(request);
    return path === '/signup' ? signup(request) : flows(request);
  };
  const server = createServer(toNodeHandler(route)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  inboundUrl = `${baseUrl}/twilio/inbound`;
  // snippet:start (docs/providers/twilio.md, "Messages users send")
  handler = createWebhookHandler({
    verikit,
    scheme: createTwilioInboundMessageVerifier({ url: inboundUrl, authToken }),
    parse: parseTwilioInboundMessage,
    logger,
  });
  close = async () => {
    await verikit.close();
    await new Promise((resolve) => server.close(resolve));
    await fake.close();
  };
});
afterAll(() => close());

/** The app's signup endpoint: `{ phoneNumber, proof }` redeemed with `signupMethods`; 403 with the refusal. */
async function signup(request: Request): Promise<Response> {
  const { phoneNumber, proof } = (await request.json()) as { phoneNumber: string; proof: string };
  try {
    const verification = await verikit.redeemProof(proof, { phoneNumber }, signupMethods);
    return Response.json({ signedIn: verification.phoneNumber, method: verification.method });
  } catch (error) {
    if (!ProofRejectedError.isInstance(error)) throw error;
    return Response.json({ error: error.toJSON() }, { status: 403 });
  }
}

/** A message SID as Twilio makes them. */
function messageSid(): string {
  return `SM${randomBytes(16).toString('hex')}`;
}

/** The fields Twilio posts for a message `from` sent to the app's number on `channel` (twilio.com, webhook request). */
function incoming(from: string, body: string, channel: 'sms' | 'whatsapp' = 'whatsapp', sid = messageSid()) {
  const prefix = channel === 'whatsapp' ? 'whatsapp:' : '';
  return {
    ToCountry: 'US',
    SmsMessageSid: sid,
    NumMedia: '0',
    SmsSid: sid,
    SmsStatus: 'received',
    Body: body,
    To: `${prefix}${channel === 'whatsapp' ? whatsappNumber : smsNumber}`,
    NumSegments: '1',
    MessageSid: sid,
    AccountSid: fake.settings.accountSid,
    From: `${prefix}${from}`,
    ApiVersion: '2010-04-01',
    ...(channel === 'whatsapp' ? { ProfileName: 'Ada', WaId: from.slice(1), MessageType: 'text' } : {}),
  };
}

/** Twilio's signature of `fields` posted to `url`, by twilio-node's own function. */
function twilioSignature(fields: Record<string, string>, url = inboundUrl, token = authToken): string {
  return getExpectedTwilioSignature(token, url, fields);
}

/** Posts a form to the inbound route, as Twilio does; the status and the answer's `status` field. */
async function post(
  body: string,
  headers: Record<string, string>,
): Promise<{ http: number; status: string | undefined }> {
  const response = await fetch(inboundUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'TwilioProxy/1.1', ...headers },
    body,
  });
  const answer = (await response.json()) as { status?: string };
  return { http: response.status, status: answer.status };
}

/** A genuine request: the fields, signed by Twilio's function with the account's token. */
function genuine(fields: Record<string, string>) {
  return { body: new URLSearchParams(fields).toString(), headers: { 'x-twilio-signature': twilioSignature(fields) } };
}

async function send(fields: Record<string, string>) {
  const request = genuine(fields);
  return post(request.body, request.headers);
}

/** A new flow whose plan starts on WhatsApp and SMS inbound steps, then SMS. */
async function startFlow(phoneNumber = freshPhoneNumber()): Promise<{ flow: FlowView; phoneNumber: string }> {
  const flow = await verikit.start({
    kind: 'phone',
    phoneNumber,
    channels: ['whatsapp-inbound', 'sms-inbound', 'sms'],
    escalateAfterMs: 60_000,
  });
  expect(flow.status).toBe('awaiting-message');
  return { flow, phoneNumber };
}

async function statusOf(flow: FlowView): Promise<string> {
  return (await verikit.get(flow.id)).status;
}

/** Every message the Twilio fake sent (codes included): an inbound step sends none. */
const sentCount = () => fake.outbox.length;

describe('a plan’s inbound step, through Twilio’s signed incoming-message webhook', () => {
  it('a genuine WhatsApp message from the number, carrying the reference, verifies the flow and sends nothing', async () => {
    const before = sentCount();
    const { flow, phoneNumber } = await startFlow();
    const reference = flow.inbound!.reference;
    expect(await send(incoming(phoneNumber, `Verify ${reference}`))).toEqual({ http: 200, status: 'applied' });
    expect(await statusOf(flow)).toBe('verified');
    const proof = await verikit.issueProof(flow.id);
    expect(await verikit.redeemProof(proof.token, { phoneNumber })).toMatchObject({ method: 'whatsapp-inbound' });
    expect(sentCount()).toBe(before);
  });

  it('a genuine SMS from the number, carrying the reference, verifies the flow (method sms-inbound)', async () => {
    const { flow, phoneNumber } = await startFlow();
    expect(await send(incoming(phoneNumber, flow.inbound!.reference, 'sms'))).toEqual({ http: 200, status: 'applied' });
    const proof = await verikit.issueProof(flow.id);
    // sms-inbound is opt-in at redemption (decision 1800): this app names it.
    expect(await verikit.redeemProof(proof.token, { phoneNumber }, { methods: ['sms-inbound'] })).toMatchObject({
      method: 'sms-inbound',
    });
  });

  it('spoofed sender: a genuine request with From changed to the victim’s number is refused (401)', async () => {
    const { flow, phoneNumber } = await startFlow();
    const attacker = freshPhoneNumber();
    // The attacker's own message, genuinely signed, carrying the victim's reference: From edited after signing.
    const fields = incoming(attacker, flow.inbound!.reference);
    const request = genuine(fields);
    const spoofed = new URLSearchParams({ ...fields, From: `whatsapp:${phoneNumber}` }).toString();
    expect(await post(spoofed, request.headers)).toMatchObject({ http: 401, status: 'unverified' });
    expect(await statusOf(flow)).toBe('awaiting-message');
  });

  it('another number: a genuine message carrying the reference from a number not the flow’s verifies nothing', async () => {
    const { flow } = await startFlow();
    const attacker = freshPhoneNumber();
    expect(await send(incoming(attacker, flow.inbound!.reference))).toEqual({ http: 202, status: 'no-active-flow' });
    expect(await send(incoming(attacker, flow.inbound!.reference, 'sms'))).toEqual({
      http: 202,
      status: 'no-active-flow',
    });
    expect(await statusOf(flow)).toBe('awaiting-message');
  });

  it('replayed webhook: the same signed request again is a duplicate, and it verifies no later flow of the number', async () => {
    const { flow, phoneNumber } = await startFlow();
    const request = genuine(incoming(phoneNumber, flow.inbound!.reference));
    expect(await post(request.body, request.headers)).toEqual({ http: 200, status: 'applied' });
    expect(await post(request.body, request.headers)).toEqual({ http: 200, status: 'duplicate' });
    // A later flow of the same number: the old request, replayed, carries the old reference.
    const { flow: later } = await startFlow(phoneNumber);
    expect(await post(request.body, request.headers)).toEqual({ http: 200, status: 'duplicate' });
    expect(await statusOf(later)).toBe('awaiting-message');
  });

  it('guessed reference: wrong references from the number verify nothing, and the sixth is refused even if right', async () => {
    const { flow, phoneNumber } = await startFlow();
    const reference = flow.inbound!.reference;
    for (let guess = 1; guess <= 5; guess += 1) {
      const wrong = String((Number(reference) + guess * 7919) % 1e8).padStart(8, '0');
      expect(await send(incoming(phoneNumber, wrong))).toEqual({ http: 202, status: 'no-active-flow' });
    }
    // The number's wrong-reference limit (5 per 10 minutes) is spent: a guesser gets 5 tries in 10^8 per window.
    // Refused for now (the limit is a passing state): the request is not applied.
    expect(await send(incoming(phoneNumber, reference))).toEqual({ http: 503, status: 'retry' });
    expect(await statusOf(flow)).toBe('awaiting-message');
  });

  it('reused reference: another flow’s reference, or a finished flow’s, verifies nothing', async () => {
    const { flow: mine, phoneNumber } = await startFlow();
    const { flow: theirs } = await startFlow();
    // Another live flow's reference, sent from my number.
    expect(await send(incoming(phoneNumber, theirs.inbound!.reference))).toEqual({
      http: 202,
      status: 'no-active-flow',
    });
    expect(await statusOf(mine)).toBe('awaiting-message');
    // My flow verified; a new flow of my number; the finished flow's reference in a new, genuinely signed message.
    expect(await send(incoming(phoneNumber, mine.inbound!.reference))).toEqual({ http: 200, status: 'applied' });
    const { flow: next } = await startFlow(phoneNumber);
    expect(next.inbound!.reference).not.toBe(mine.inbound!.reference);
    expect(await send(incoming(phoneNumber, mine.inbound!.reference))).toEqual({
      http: 202,
      status: 'no-active-flow',
    });
    expect(await statusOf(next)).toBe('awaiting-message');
    expect(await statusOf(theirs)).toBe('awaiting-message');
  });

  it('unsigned, wrongly signed, signed for another URL or altered after signing: refused (401)', async () => {
    const { flow, phoneNumber } = await startFlow();
    const fields = incoming(phoneNumber, flow.inbound!.reference);
    const body = new URLSearchParams(fields).toString();
    const forged: Array<Record<string, string>> = [
      {},
      { 'x-twilio-signature': twilioSignature(fields, inboundUrl, 'another-accounts-auth-token') },
      { 'x-twilio-signature': twilioSignature(fields, 'https://attacker.example/twilio/inbound') },
      { 'x-twilio-signature': 'not-a-signature' },
      // Signed with a SharedKey the app does not hold.
      {
        'x-twilio-signature': twilioSignature(fields),
        'x-twilio-webhooks-signature-settings': 'key=KS123,algorithm=HMAC_SHA256',
      },
    ];
    for (const headers of forged) expect(await post(body, headers)).toMatchObject({ http: 401, status: 'unverified' });
    const signed = genuine(incoming(phoneNumber, '00000000'));
    const altered = signed.body.replace('00000000', flow.inbound!.reference);
    expect(await post(altered, signed.headers)).toMatchObject({ http: 401, status: 'unverified' });
    expect(await statusOf(flow)).toBe('awaiting-message');
  });

  it('never logs a reference or a message text', async () => {
    const { flow, phoneNumber } = await startFlow();
    await send(incoming(phoneNumber, `secret words ${flow.inbound!.reference}`));
    const logged = lines.join('\n');
    expect(logged).not.toContain(flow.inbound!.reference);
    expect(logged).not.toContain('secret words');
    expect(lines.length).toBeGreaterThan(0);
  });
});

describe('a forged SMS "from" a victim, over HTTP: the flow verifies, the default signup refuses (decision 1800)', () => {
  /**
   * The attacker's side, in a browser: starts a flow for `victim` with the inbound step `step` (`POST /flows`), reads
   * the reference on screen, and has an SMS (or WhatsApp message) carrying it reach the app's number "from" the
   * victim. A sender forged on the SMS route reaches Twilio as any message does, so Twilio's request is genuinely
   * signed with `From` the victim's number. Then asks for a proof and posts it to the app's signup endpoint.
   */
  async function attack(step: 'sms-inbound' | 'whatsapp-inbound', victim = freshPhoneNumber()) {
    const started = await fetch(`${baseUrl}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'phone', phoneNumber: victim, channels: [step, 'sms'] }),
    });
    expect(started.status).toBe(201);
    const flow = (await started.json()) as FlowView & { flowSecret: string };
    const headers = { 'verikit-flow-secret': flow.flowSecret };
    const channel = step === 'sms-inbound' ? 'sms' : 'whatsapp';
    expect(await send(incoming(victim, flow.inbound!.reference, channel))).toEqual({ http: 200, status: 'applied' });
    const view = (await (await fetch(`${baseUrl}/flows/${flow.id}`, { headers })).json()) as FlowView;
    expect(view.status).toBe('verified');
    const proof = await fetch(`${baseUrl}/flows/${flow.id}/proof`, { method: 'POST', headers });
    expect(proof.status).toBe(201);
    const { token } = (await proof.json()) as { token: string };
    const signIn = () =>
      fetch(`${baseUrl}/signup`, { method: 'POST', body: JSON.stringify({ phoneNumber: victim, proof: token }) });
    return { victim, flow, token, signIn };
  }

  it('sms-inbound: verified, but the signup with the default methods refuses the proof, naming the method', async () => {
    signupMethods = undefined;
    const before = lines.length;
    const { victim, flow, token, signIn } = await attack('sms-inbound');
    const refused = await signIn();
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: unknown }).error).toEqual({
      name: 'ProofRejectedError',
      code: 'proof_rejected',
      message: 'sms-inbound proofs are refused unless named in methods: SMS sender numbers can be forged',
      field: 'token',
      isRetryable: false,
      reason: 'method',
      method: 'sms-inbound',
    });
    // Refused again, every time: the attacker gets no other answer by repeating.
    expect((await signIn()).status).toBe(403);
    const logged = lines.slice(before).filter((line) => line.startsWith('verikit.proof.rejected'));
    expect(logged).toEqual(
      Array(2).fill(
        `verikit.proof.rejected ${JSON.stringify({ reason: 'method', flowId: flow.id, kind: 'phone', method: 'sms-inbound' })}`,
      ),
    );
    const all = lines.join('\n');
    for (const secret of [victim, victim.slice(1), token, flow.inbound!.reference, flow.flowSecret])
      expect(all).not.toContain(secret);
  });

  it('sms-inbound: an app that names the method in methods accepts the proof, once', async () => {
    signupMethods = { methods: [...defaultProofMethods, 'sms-inbound'] };
    const { victim, signIn } = await attack('sms-inbound');
    const accepted = await signIn();
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ signedIn: victim, method: 'sms-inbound' });
    const again = await signIn();
    expect(again.status).toBe(403);
    expect(await again.json()).toMatchObject({ error: { reason: 'used' } });
  });

  it('whatsapp-inbound, unchanged: the default methods accept its proof (WhatsApp reports the account’s number)', async () => {
    signupMethods = undefined;
    const { victim, signIn } = await attack('whatsapp-inbound');
    const accepted = await signIn();
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ signedIn: victim, method: 'whatsapp-inbound' });
  });
});
