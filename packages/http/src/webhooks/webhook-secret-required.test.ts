import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { createVerikit } from '@verikit/core';
import { InvalidInputError, type Logger, type ProviderEventV1 } from '@verikit/provider';
import { createFlowHandler } from '../create-flow-handler.js';
import { createWebhookHandler } from './create-webhook-handler.js';
import { allowUnsignedConsent } from './webhook-options.js';

const engineSecret = 'engine-secret-for-the-webhook-secret-tests';
const webhookSecret = `whsec_${Buffer.from('webhook-secret-required-key-32b!').toString('base64')}`;

function engine(options: { parses?: boolean } = {}) {
  const parse = (): ProviderEventV1 | null => null;
  const provider =
    options.parses === false ? createTestProviderV1() : Object.assign(createTestProviderV1(), { webhooks: { parse } });
  return createVerikit({ provider, secret: engineSecret });
}

/** A logger that keeps each line's level, message and hint. */
function loggerInto(lines: Array<{ level: string; message: string; hint?: unknown }>): Logger {
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, hint: fields?.hint });
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** The error `create` throws, checked to be an `InvalidInputError` naming `field`. */
function refusal(create: () => unknown, field: string): InvalidInputError {
  let caught: unknown;
  try {
    create();
  } catch (error) {
    caught = error;
  }
  expect(InvalidInputError.isInstance(caught)).toBe(true);
  const error = caught as InvalidInputError;
  expect(error.field).toBe(field);
  expect(error.isRetryable).toBe(false);
  return error;
}

// An unset environment variable reads as undefined: `{ secret: process.env.VERIKIT_WEBHOOK_SECRET }`.
const unset: string | undefined = undefined;

describe('a webhook handler without a secret', () => {
  it('createWebhookHandler refuses it at creation, naming secret and saying first how to set it', () => {
    const verikit = engine();
    for (const options of [{ verikit, secret: unset }, { verikit }]) {
      const error = refusal(() => createWebhookHandler(options), 'secret');
      expect(error.message).toMatch(
        /^secret is required, since the provider sends webhooks: set it to the signing secret/,
      );
      expect(error.message).toMatch(/VERIKIT_WEBHOOK_SECRET=whsec_/);
      expect(error.message).toMatch(/environment variable/);
      // The opt-out comes last, as what it is: for local experiments.
      expect(error.message.indexOf('allowUnsigned')).toBeGreaterThan(error.message.indexOf('VERIKIT_WEBHOOK_SECRET'));
      expect(error.message).toMatch(/local experiments, allowUnsigned/);
    }
  });

  it('a provider that sends no webhooks (Termii, Twilio) needs no secret: the flow handler has no webhook route', async () => {
    const verikit = engine({ parses: false });
    const lines: Array<{ level: string; message: string; hint?: unknown }> = [];
    const handler = createFlowHandler({ verikit, logger: loggerInto(lines) });
    const response = await handler(new Request('http://app.example/webhooks', { method: 'POST', body: '{}' }));
    expect(response.status).toBe(404);
    // Webhook options given anyway change nothing: the route stays off, and nothing is refused at creation.
    const withOptions = createFlowHandler({ verikit, webhooks: { secret: unset } });
    expect((await withOptions(new Request('http://app.example/webhooks', { method: 'POST' }))).status).toBe(404);
    expect(lines.filter((line) => line.message.startsWith('verikit.inbound.'))).toEqual([]);
    // Asking for a webhook handler on purpose is refused, saying why.
    const error = refusal(() => createWebhookHandler({ verikit, secret: webhookSecret }), 'verikit');
    expect(error.message).toMatch(/sends no webhooks/);
  });

  it('createFlowHandler refuses webhooks: { secret: undefined } at creation, naming webhooks.secret', () => {
    const verikit = engine();
    const error = refusal(() => createFlowHandler({ verikit, webhooks: { secret: unset } }), 'webhooks.secret');
    expect(error.message).toMatch(/webhooks\.allowUnsigned/);
    refusal(
      () => createFlowHandler({ verikit, webhooks: { scheme: 'standard-webhooks', toleranceSeconds: 60 } }),
      'webhooks.secret',
    );
  });

  it('names the option as written in other errors too: secret for the handler, webhooks.secret under the flow handler', () => {
    const verikit = engine();
    refusal(() => createWebhookHandler({ verikit, secret: 'short' }), 'secret');
    refusal(() => createFlowHandler({ verikit, webhooks: { secret: 'short' } }), 'webhooks.secret');
    refusal(() => createWebhookHandler({ verikit, secret: webhookSecret, toleranceSeconds: 0 }), 'toleranceSeconds');
  });

  it('accepts the explicit opt-out, a verifier of your own, and a secret', async () => {
    const verikit = engine();
    expect(createWebhookHandler({ verikit, allowUnsigned: allowUnsignedConsent })).toBeTypeOf('function');
    expect(createWebhookHandler({ verikit, scheme: { verify: () => ({ id: 'msg_1' }) } })).toBeTypeOf('function');
    expect(createFlowHandler({ verikit, webhooks: { secret: unset, allowUnsigned: allowUnsignedConsent } })).toBeTypeOf(
      'function',
    );
    const handler = createWebhookHandler({ verikit, secret: webhookSecret });
    expect((await handler(new Request('http://app.example/webhooks', { method: 'POST', body: '{}' }))).status).toBe(
      401,
    );
  });

  it('createFlowHandler without any webhooks option keeps a route that refuses (401), and warns at creation when the provider sends webhooks', async () => {
    const lines: Array<{ level: string; message: string; hint?: unknown }> = [];
    const handler = createFlowHandler({ verikit: engine(), logger: loggerInto(lines) });
    const warning = lines.find((line) => line.message === 'verikit.inbound.not-configured');
    expect(warning?.level).toBe('warn');
    expect(String(warning?.hint)).toMatch(/webhooks: \{ secret \}/);
    const response = await handler(new Request('http://app.example/webhooks', { method: 'POST', body: '{}' }));
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      status: 'unverified',
      error: { message: expect.stringMatching(/no webhook secret is configured/) },
    });

    const quiet: typeof lines = [];
    createFlowHandler({ verikit: engine({ parses: false }), logger: loggerInto(quiet) });
    createFlowHandler({ verikit: engine(), logger: loggerInto(quiet), webhookPath: false });
    expect(quiet.filter((line) => line.message === 'verikit.inbound.not-configured')).toEqual([]);
  });
});
