import { silentLogger } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { createTestProviderV1 } from './test-provider-v1.js';

describe('createTestProviderV1: latency and the abort signal', () => {
  it('rejects at once, with the signal reason, when the signal is already aborted and latency is set', async () => {
    const provider = createTestProviderV1({ latencyMs: 10_000 });
    const reason = new Error('deadline passed');
    const context = { signal: AbortSignal.abort(reason), idempotencyKey: 'flow:effect:1', logger: silentLogger };
    const startedAt = Date.now();
    const outcome = await Promise.race([
      provider.sms!.send({ from: 'Shop', to: '+2348031110001', message: 'hi' }, context).then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 200)),
    ]);
    expect(outcome).toBe(reason);
    expect(Date.now() - startedAt).toBeLessThan(200);
    expect(provider.outbox).toHaveLength(0);
  });

  it('rejects when the signal aborts during the latency', async () => {
    const provider = createTestProviderV1({ latencyMs: 10_000 });
    const controller = new AbortController();
    const call = provider.sms!.send(
      { from: 'Shop', to: '+2348031110001', message: 'hi' },
      { signal: controller.signal, idempotencyKey: 'k', logger: silentLogger },
    );
    controller.abort(new Error('stop'));
    await expect(call).rejects.toThrow('stop');
  });
});

describe('createTestProviderV1: webhooks', () => {
  it('has no wire format of its own: no webhooks capability unless it is given one, then exactly that one', () => {
    expect(createTestProviderV1().webhooks).toBeUndefined();
    const webhooks = { parse: () => null };
    expect(createTestProviderV1({ webhooks }).webhooks).toBe(webhooks);
  });
});
