import { describe, expect, it } from 'vitest';
import { createVerikit } from '@verikit/core';
import { InvalidInputError } from '@verikit/provider';
import { expectNoSecrets, failureOf, freshPhoneNumber } from '@verikit/testing';
import { providerFromEnv } from './provider-from-env.js';

const context = { webhookUrl: 'http://127.0.0.1:9/api/verify/webhooks' };
const secret = 'provider-from-env-test-secret-0123456789';

describe('providerFromEnv', () => {
  it('starts the sandbox by default, with a generated webhook secret, and stops it on close', async () => {
    const setup = await providerFromEnv({}, context);
    try {
      expect(setup.name).toBe('sandbox');
      expect(setup.webhookSecret).toMatch(/^whsec_/);
      expect(setup.sandbox?.webhookSecret).toBe(setup.webhookSecret);
      const health = await fetch(`${setup.sandbox!.url}/__sandbox/health`);
      expect(health.status).toBe(200);
    } finally {
      await setup.close();
    }
    await expect(fetch(`${setup.sandbox!.url}/__sandbox/health`)).rejects.toThrow();
  });

  it("gives the sandbox the engine's maxAttempts: with 7, the right code after six wrong ones is verified", async () => {
    const setup = await providerFromEnv({}, { ...context, maxAttempts: 7 });
    try {
      expect(setup.sandbox?.maxAttempts).toBe(7);
      const verikit = createVerikit({ provider: setup.provider, secret, policies: { maxAttempts: 7 } });
      const phoneNumber = freshPhoneNumber();
      const flow = await verikit.start({ kind: 'phone', phoneNumber });
      for (let wrong = 0; wrong < 6; wrong += 1) await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
      const view = await verikit.send(flow.id, { type: 'submit-code', code: setup.sandbox!.lastCode(phoneNumber)! });
      expect(view.status).toBe('verified');
    } finally {
      await setup.close();
    }
  });

  it('runs on the test double with VERIKIT_PROVIDER=test, handing its USSD results to the engine', async () => {
    const setup = await providerFromEnv({ VERIKIT_PROVIDER: 'test' }, context);
    const verikit = createVerikit({ provider: setup.provider, secret });
    setup.connect(verikit);
    const phoneNumber = freshPhoneNumber();
    const flow = await verikit.start({ kind: 'ussd', phoneNumber });
    expect(flow.status).toBe('awaiting-dial');
    await setup.testProvider!.completeUssd(phoneNumber, 'success');
    await expect.poll(async () => (await verikit.get(flow.id)).status).toBe('verified');
    await setup.close();
  });

  it('refuses a provider it does not know, naming VERIKIT_PROVIDER and the ones it knows', async () => {
    const error = await failureOf(providerFromEnv({ VERIKIT_PROVIDER: 'termii-typo' }, context));
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect(error.field).toBe('VERIKIT_PROVIDER');
    expect(error.message).toContain('sandbox, test, gateway');
    expectNoSecrets(error.toJSON(), ['termii-typo']);
    // Names from Object.prototype are not providers.
    expect((await failureOf(providerFromEnv({ VERIKIT_PROVIDER: 'toString' }, context))).field).toBe(
      'VERIKIT_PROVIDER',
    );
  });

  it('needs the gateway settings with VERIKIT_PROVIDER=gateway, naming the first one missing', async () => {
    const gateway = {
      VERIKIT_PROVIDER: 'gateway',
      GATEWAY_API_KEY: 'key-never-echoed',
      GATEWAY_BASE_URL: 'https://api.example.com',
      GATEWAY_USSD_BASE_URL: 'https://ussd.example.com',
    };
    expect((await failureOf(providerFromEnv({ ...gateway, GATEWAY_API_KEY: '' }, context))).field).toBe(
      'GATEWAY_API_KEY',
    );
    expect((await failureOf(providerFromEnv({ ...gateway, GATEWAY_USSD_BASE_URL: '' }, context))).field).toBe(
      'GATEWAY_USSD_BASE_URL',
    );
    const missingSecret = await failureOf(providerFromEnv(gateway, context));
    expect(missingSecret.field).toBe('VERIKIT_WEBHOOK_SECRET');
    expectNoSecrets(missingSecret.toJSON(), ['key-never-echoed']);
    const setup = await providerFromEnv(
      { ...gateway, VERIKIT_WEBHOOK_SECRET: 'whsec_c2lnbmluZy1zZWNyZXQtb2YtdGhlLXNlcnZpY2U=' },
      context,
    );
    expect(setup.name).toBe('gateway');
    expect(setup.webhookSecret).toBe('whsec_c2lnbmluZy1zZWNyZXQtb2YtdGhlLXNlcnZpY2U=');
    await setup.close();
  });
});
