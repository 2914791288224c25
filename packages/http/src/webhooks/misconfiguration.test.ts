import { randomUUID } from 'node:crypto';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVerikit } from '@verikit/core';
import type { ProviderEventV1, RawWebhookV1 } from '@verikit/provider';
import { createFlowHandler } from '../create-flow-handler.js';
import { createWebhookHandler } from './create-webhook-handler.js';

// Misconfigurations a developer must see without passing a logger: the default logger prints warnings.
const engineSecret = 'misconfiguration-engine-secret-0123456789';
const configuredSecret = `whsec_${Buffer.from('the-secret-configured-in-the-app-32').toString('base64')}`;
const providerSecret = `whsec_${Buffer.from('the-secret-the-provider-signs-with-').toString('base64')}`;
const phoneNumber = '+2348012345678';
const clock = new ManualClock(Date.UTC(2031, 5, 1, 12));

const parse = (webhook: RawWebhookV1): ProviderEventV1 => {
  const { phoneNumber: number } = JSON.parse(webhook.body) as { phoneNumber: string };
  return { type: 'ussd-verification', phoneNumber: number, status: 'success' };
};

async function ussdEngine() {
  const provider = Object.assign(createTestProviderV1(), { webhooks: { parse } });
  const verikit = createVerikit({ provider, secret: engineSecret, clock });
  const flow = await verikit.start({ kind: 'ussd', phoneNumber });
  return { verikit, flow };
}

function signed(secret: string, path = '/webhooks'): Request {
  const id = `msg_${randomUUID()}`;
  const body = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber, status: 'success' });
  return new Request(`https://app.example${path}`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(clock.now() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, new Date(clock.now()), body),
    },
  });
}

/** What the default logger printed with console.warn, as (message, fields) pairs. */
function consoleWarnings() {
  const spy = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  return () =>
    spy.mock.calls.map(([message, fields]) => ({
      message: String(message),
      fields: fields as Record<string, unknown>,
    }));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a wrong webhook secret, with no logger passed', () => {
  it('is a console warning, once for many deliveries, naming the option to fix and never a secret', async () => {
    const { verikit, flow } = await ussdEngine();
    const warnings = consoleWarnings();
    const webhooks = createWebhookHandler({ verikit, secret: configuredSecret, clock });
    for (let index = 0; index < 3; index += 1) expect((await webhooks(signed(providerSecret))).status).toBe(401);
    expect((await verikit.get(flow.id)).status).toBe('awaiting-dial');

    expect(warnings().map((warning) => warning.message)).toEqual(['verikit.inbound.signature-mismatch']);
    const { fields } = warnings()[0]!;
    expect(fields.hint).toMatch(/does not match secret: set it to the signing secret the provider shows/);
    expect(fields.hint).toMatch(/awaiting-dial/);
    const printed = JSON.stringify(warnings());
    for (const secret of [configuredSecret, providerSecret]) {
      expect(printed).not.toContain(secret);
      expect(printed).not.toContain(secret.slice('whsec_'.length, 'whsec_'.length + 12));
    }
  });

  it('the flow handler names webhooks.secret, and the right secret then verifies the flow', async () => {
    const { verikit, flow } = await ussdEngine();
    const warnings = consoleWarnings();
    const handler = createFlowHandler({ verikit, webhooks: { secret: configuredSecret, clock } });
    await handler(signed(providerSecret));
    await handler(signed(providerSecret));
    expect(warnings().map((warning) => warning.message)).toEqual(['verikit.inbound.signature-mismatch']);
    expect(warnings()[0]!.fields.hint).toMatch(/does not match webhooks\.secret/);
    expect((await handler(signed(configuredSecret))).status).toBe(200);
    expect((await verikit.get(flow.id)).status).toBe('verified');
  });

  it('a stale or unsigned delivery is no misconfiguration: no warning', async () => {
    const { verikit } = await ussdEngine();
    const warnings = consoleWarnings();
    const webhooks = createWebhookHandler({ verikit, secret: configuredSecret, clock });
    const unsigned = new Request('https://app.example/webhooks', { method: 'POST', body: '{}' });
    expect((await webhooks(unsigned)).status).toBe(401);
    expect(warnings()).toEqual([]);
  });
});

describe('a provider that sends webhooks, with no webhook route configured', () => {
  it('is a console warning at creation, once, saying how to fix it; deliveries then warn once more at most', async () => {
    const { verikit } = await ussdEngine();
    const warnings = consoleWarnings();
    const handler = createFlowHandler({ verikit });
    expect(warnings().map((warning) => warning.message)).toEqual(['verikit.inbound.not-configured']);
    expect(warnings()[0]!.fields.hint).toMatch(/webhooks: \{ secret \}/);
    for (let index = 0; index < 3; index += 1) expect((await handler(signed(providerSecret))).status).toBe(401);
    expect(warnings().map((warning) => warning.message)).toEqual([
      'verikit.inbound.not-configured',
      'verikit.inbound.refused',
    ]);
    expect(String(warnings()[1]!.fields.hint)).toMatch(/set webhooks\.secret to the signing secret/);
  });

  it('a provider without webhooks (Termii, Twilio) needs no route: nothing is printed', async () => {
    const verikit = createVerikit({ provider: createTestProviderV1(), secret: engineSecret, clock });
    const warnings = consoleWarnings();
    createFlowHandler({ verikit });
    expect(warnings()).toEqual([]);
  });
});
