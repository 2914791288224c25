import { createGatewayProvider } from '@verikit/gateway';
import { silentLogger } from '@verikit/provider';
import { expect, it } from 'vitest';
import { startSandbox, type SandboxEvent } from './index.js';

it('startSandbox (deprecated) is the gateway fake, with onEvent still hearing its requests', async () => {
  const sandbox = await startSandbox();
  try {
    const events: SandboxEvent[] = [];
    sandbox.onEvent((event) => events.push(event));
    const provider = createGatewayProvider({
      apiKey: sandbox.apiKey,
      baseUrl: sandbox.baseUrl,
      ussdBaseUrl: sandbox.ussdBaseUrl,
      defaultSender: 'Acme',
    });
    const context = { signal: new AbortController().signal, idempotencyKey: 'k', logger: silentLogger };
    await provider.sms!.send({ to: '+2348031239906', message: 'hello' }, context);
    expect(sandbox.outbox.at(-1)).toMatchObject({ to: '+2348031239906', text: 'hello', kind: 'sms' });
    expect(events).toMatchObject([{ type: 'request', operation: 'sms.send', status: 200 }]);
  } finally {
    await sandbox.close();
  }
});

it("every deprecated name is the gateway fake's own value, so code on the old names keeps working for one release", async () => {
  const sandbox = await import('./index.js');
  const fake = await import('@verikit/gateway/fake');
  expect([
    sandbox.generateWebhookSecret,
    sandbox.defaultTestIdentities,
    sandbox.magicPhoneNumbers,
    sandbox.magicIdentityNumbers,
    sandbox.magicBehaviourDescriptions,
    sandbox.defaultSandboxApiKey,
    sandbox.sandboxEndpoints,
    sandbox.sandboxPathPrefixes,
    sandbox.verifySandboxWebhook,
  ]).toEqual([
    fake.generateWebhookSecret,
    fake.defaultTestIdentities,
    fake.magicPhoneNumbers,
    fake.magicIdentityNumbers,
    fake.magicBehaviourDescriptions,
    fake.defaultGatewayFakeApiKey,
    fake.gatewayFakeEndpoints,
    fake.gatewayFakePathPrefixes,
    fake.verifyGatewayFakeWebhook,
  ]);
  expect(sandbox.verifySandboxWebhook).toBe(fake.verifyGatewayFakeWebhook);
});
