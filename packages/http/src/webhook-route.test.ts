import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, expect, it } from 'vitest';
import type { FlowView } from '@verikit/core';
import type { Logger, ProviderEventV1, RawWebhookV1 } from '@verikit/provider';
import { createFlowHandler } from './create-flow-handler.js';
import { describeAdapters, EventReader, phoneNumber, postJson, setupHttp, type HttpSetup } from './http.fixtures.js';

let setup: HttpSetup | undefined;
afterEach(async () => {
  await setup?.close();
  setup = undefined;
});

const webhookSecret = `whsec_${Buffer.from('flow-handler-webhook-key-32-bytes').toString('base64')}`;

/** The service's USSD_VERIFICATION payload, parsed as a provider's `webhooks.parse` would. */
function parse(webhook: RawWebhookV1): ProviderEventV1 | null {
  const body = JSON.parse(webhook.body) as { event: string; phoneNumber: string; status: 'success' | 'failed' };
  return body.event === 'USSD_VERIFICATION'
    ? { type: 'ussd-verification', phoneNumber: body.phoneNumber, status: body.status }
    : null;
}

function signed(body: string): Record<string, string> {
  const id = `msg_${randomUUID()}`;
  const timestamp = new Date();
  const signature = new Webhook(webhookSecret).sign(id, timestamp, body);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

describeAdapters('POST /webhooks: delegated to verikit.webhooks', () => {
  it('applies a signed USSD result, which an SSE client of the flow sees, and refuses an unsigned one', async () => {
    setup = await setupHttp(
      { cors: { origin: 'https://app.example.com' }, webhooks: { secret: webhookSecret } },
      {},
      { parse },
    );
    const flow = (await (await postJson(`${setup.url}/flows`, { kind: 'ussd', phoneNumber })).json()) as FlowView;
    const controller = new AbortController();
    const events = new EventReader(await fetch(`${setup.url}/flows/${flow.id}/stream`, { signal: controller.signal }));
    expect((await events.nextView())?.view.status).toBe('awaiting-dial');

    const body = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber, status: 'success' });
    const unsigned = await fetch(`${setup.url}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://app.example.com' },
      body,
    });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ status: 'unverified' });
    expect(unsigned.headers.get('access-control-allow-origin')).toBeNull();
    expect((await setup.verikit.get(flow.id)).status).toBe('awaiting-dial');

    const applied = await fetch(`${setup.url}/webhooks`, { method: 'POST', headers: signed(body), body });
    expect(applied.status).toBe(200);
    expect(await applied.json()).toEqual({ status: 'applied', flowId: flow.id });
    expect((await events.nextView())?.view).toMatchObject({ status: 'verified', done: true });
    expect(await events.nextView()).toBeUndefined();
  });

  it('lives at webhookPath below basePath, and can be left out', async () => {
    setup = await setupHttp(
      { basePath: '/api', webhookPath: '/provider/events', webhooks: { secret: webhookSecret } },
      {},
      { parse },
    );
    const body = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber, status: 'success' });
    const response = await fetch(`${setup.url}/api/provider/events`, { method: 'POST', headers: signed(body), body });
    expect(response.status).toBe(202);
    expect(await response.json()).toMatchObject({ status: 'no-active-flow' });
    expect((await fetch(`${setup.url}/api/provider/events`)).status).toBe(405);
    await setup.close();
    setup = await setupHttp({ webhookPath: false, webhooks: { secret: webhookSecret } }, {}, { parse });
    expect((await fetch(`${setup.url}/webhooks`, { method: 'POST', headers: signed(body), body })).status).toBe(404);
  });

  it('takes its body cap and logger from the handler: maxWebhookBodyBytes and logger; webhooks.maxBodyBytes and webhooks.logger are their deprecated spellings', async () => {
    const lines: string[] = [];
    const logger = (prefix: string): Logger => {
      const at = (message: string) => void lines.push(`${prefix} ${message}`);
      return { debug: at, info: at, warn: at, error: at };
    };
    const big = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber, status: 'success', pad: 'x'.repeat(600) });
    const post = (url: string) => fetch(`${url}/webhooks`, { method: 'POST', headers: signed(big), body: big });

    setup = await setupHttp(
      { maxWebhookBodyBytes: 512, logger: logger('handler'), webhooks: { secret: webhookSecret } },
      {},
      { parse },
    );
    expect((await post(setup.url)).status).toBe(413);
    expect(lines).toContain('handler verikit.inbound.malformed');
    await setup.close();

    lines.length = 0;
    setup = await setupHttp(
      { logger: logger('handler'), webhooks: { secret: webhookSecret, maxBodyBytes: 512, logger: logger('old') } },
      {},
      { parse },
    );
    expect((await post(setup.url)).status).toBe(413);
    expect(lines).toContain('old verikit.inbound.malformed');

    // Both spellings of the cap at once: refused at creation, naming the old one.
    const both = () =>
      createFlowHandler({
        verikit: setup!.verikit,
        maxWebhookBodyBytes: 512,
        webhooks: { secret: webhookSecret, maxBodyBytes: 512 },
      });
    expect(both).toThrow(expect.objectContaining({ code: 'invalid_input', field: 'webhooks.maxBodyBytes' }));
  });
});
