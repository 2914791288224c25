import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVerikit, type FlowView } from '@verikit/core';
import { createTermiiProvider, termiiWebhookScheme, type TermiiProviderSettings } from '@verikit/termii';
import { startTermiiFake, termiiMagicNumbers, type TermiiFake } from '@verikit/termii/fake';
import { createFlowHandler } from '../create-flow-handler.js';
import { toNodeHandler } from '../node/node-adapter.js';

// Termii's delivery reports over real HTTP: the fake sends them as Termii documents (signed JSON to the
// webhook URL), the flow handler's webhook route verifies X-Termii-Signature and hands them to the engine.

const secretKey = 'termii-secret-key-for-delivery-reports';
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function setupTermii(
  reportKey: string,
  settings: Partial<TermiiProviderSettings> = {},
): Promise<{
  url: string;
  fake: TermiiFake;
  verikit: ReturnType<typeof createVerikit>;
  webhookAnswers: number[];
  reports: Array<{ body: string; signature: string }>;
}> {
  let webhookUrl = '';
  const fake = await startTermiiFake({
    deliveryReports: {
      get url() {
        return webhookUrl;
      },
      secretKey: reportKey,
      delayMs: 20,
    },
  });
  closers.push(() => fake.close());
  const provider = createTermiiProvider({ apiKey: fake.apiKey, baseUrl: fake.baseUrl, senderId: 'Acme', ...settings });
  const verikit = createVerikit({ provider, secret: 'termii-receipts-test-secret-0123456789' });
  const handler = createFlowHandler({ verikit, webhooks: { secret: secretKey, scheme: termiiWebhookScheme } });
  // What the webhook route answered to each report, as the sender saw it.
  const webhookAnswers: number[] = [];
  // Each report as it came, to be sent again.
  const reports: Array<{ body: string; signature: string }> = [];
  const recording = async (request: Request) => {
    const isReport = new URL(request.url).pathname === '/webhooks';
    if (isReport)
      reports.push({ body: await request.clone().text(), signature: request.headers.get('x-termii-signature') ?? '' });
    const response = await handler(request);
    if (isReport) webhookAnswers.push(response.status);
    return response;
  };
  const server = createServer(toNodeHandler(recording)).listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  webhookUrl = `${url}/webhooks`;
  return { url, fake, verikit, webhookAnswers, reports };
}

describe('Termii delivery reports become flow events', () => {
  it('shows a voice code as delivered in the flow view, without the number', async () => {
    const { url, verikit, webhookAnswers } = await setupTermii(secretKey);
    const started = await fetch(`${url}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'phone', phoneNumber: '+2348031234567', channel: 'voice' }),
    });
    expect(started.status).toBe(201);
    const flow = (await started.json()) as FlowView;
    await vi.waitFor(async () => expect((await verikit.get(flow.id)).delivery?.status).toBe('delivered'), {
      timeout: 5_000,
      interval: 20,
    });
    const view = await verikit.get(flow.id);
    expect(view.status).toBe('awaiting-code');
    expect(JSON.stringify(view.delivery)).not.toMatch(/2348031234567/);
    expect(webhookAnswers).toEqual([200]);
  });

  it('refuses a report signed with another key: the flow shows no delivery', async () => {
    const { verikit, webhookAnswers } = await setupTermii('another-secret-key-not-the-apps-one');
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234567', channel: 'voice' });
    await vi.waitFor(() => expect(webhookAnswers).toEqual([401]), { timeout: 5_000, interval: 20 });
    expect((await verikit.get(flow.id)).delivery).toBeUndefined();
  });

  it("an SMS code sent with smsCodes 'messaging' that Termii reports undelivered moves the flow to WhatsApp once; the report sent again changes nothing", async () => {
    // The DND number on the generic route: Termii accepts the message and reports it undelivered.
    const dnd = Object.entries(termiiMagicNumbers).find(([, behaviour]) => behaviour === 'dnd')![0];
    const { fake, verikit, webhookAnswers, reports, url } = await setupTermii(secretKey, {
      smsCodes: 'messaging',
      otpRoute: 'generic',
      whatsappFrom: 'Acme Device',
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: dnd, channels: ['sms', 'whatsapp'] });
    expect(flow.channel).toBe('sms');
    const whatsapp = () => fake.outbox.filter((message) => message.channel === 'whatsapp' && message.to === dnd);
    await vi.waitFor(() => expect(whatsapp()).toHaveLength(1), { timeout: 10_000, interval: 20 });
    await vi.waitFor(
      async () => expect(await verikit.get(flow.id)).toMatchObject({ channel: 'whatsapp', status: 'awaiting-code' }),
      { timeout: 5_000, interval: 20 },
    );
    // Every report the fake sent (the SMS's, then the WhatsApp code's) was taken once.
    await vi.waitFor(() => expect(webhookAnswers).toEqual([200, 200]), { timeout: 5_000, interval: 20 });
    expect((await verikit.get(flow.id)).delivery?.status).toBe('delivered');
    // The WhatsApp code is the one that checks; the report of the SMS named only its message id.
    await expect(verikit.send(flow.id, { type: 'submit-code', code: fake.lastCode(dnd)! })).resolves.toMatchObject({
      status: 'verified',
    });
    const [undelivered] = reports;
    const again = await fetch(`${url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-termii-signature': undelivered!.signature },
      body: undelivered!.body,
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'duplicate' });
    // Altered by one byte: refused, whatever it says.
    const forged = await fetch(`${url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-termii-signature': undelivered!.signature },
      body: `${undelivered!.body} `,
    });
    expect(forged.status).toBe(401);
    await verikit.runDueTimers();
    expect(whatsapp()).toHaveLength(1);
  });
});
