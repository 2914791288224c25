import { silentLogger } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { createTestProviderV1 } from './test-provider-v1.js';

describe('createTestProviderV1: latency and the abort signal', () => {
  it('rejects at once, with the signal reason, when the signal is already aborted and latency is set', async () => {
    const provider = createTestProviderV1({ latencyMs: 10_000 });
    const reason = new Error('deadline passed');
    const context = { signal: AbortSignal.abort(reason), idempotencyKey: 'flow:effect:1', logger: silentLogger };
    const outcome = await Promise.race([
      provider.sms!.send({ from: 'Shop', to: '+2348031110001', message: 'hi' }, context).then(
        () => 'resolved',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 200)),
    ]);
    expect(outcome).toBe(reason);
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

describe('createTestProviderV1: history', () => {
  const context = { signal: new AbortController().signal, idempotencyKey: 'k', logger: silentLogger };
  const send = (provider: ReturnType<typeof createTestProviderV1>, index: number) =>
    provider.sms!.send(
      { from: 'Shop', to: `+234803111${String(index).padStart(4, '0')}`, message: `m${index}` },
      context,
    );

  it('keeps the last 1,000 calls and messages by default, oldest first, so a long run does not grow without end', async () => {
    const provider = createTestProviderV1();
    for (let index = 0; index < 1003; index += 1) await send(provider, index);
    expect(provider.calls).toHaveLength(1000);
    expect(provider.outbox).toHaveLength(1000);
    expect(provider.outbox[0]!.text).toBe('m3');
    expect(provider.outbox.at(-1)!.text).toBe('m1002');
    expect((provider.calls[0]!.input as { message: string }).message).toBe('m3');
  });

  it('keeps as many as historyLimit says, and all of them with Infinity', async () => {
    const few = createTestProviderV1({ historyLimit: 2, phoneCode: (phoneNumber) => phoneNumber.slice(-6) });
    for (const phoneNumber of ['+2348031000001', '+2348031000002', '+2348031000003'])
      await few.phone!.send({ phoneNumber, channel: 'sms' }, context);
    expect(few.outbox.map((message) => message.to)).toEqual(['+2348031000002', '+2348031000003']);
    expect(few.callsOf('phone.send')).toHaveLength(2);
    expect(few.lastCode('+2348031000003')).toBe('000003');
    expect(few.lastCode('+2348031000001')).toBeUndefined();

    const all = createTestProviderV1({ historyLimit: Number.POSITIVE_INFINITY });
    for (let index = 0; index < 1001; index += 1) await send(all, index);
    expect(all.calls).toHaveLength(1001);
  });

  it('refuses a historyLimit that is not a whole number of at least 1', () => {
    for (const historyLimit of [0, -1, 1.5, Number.NaN])
      expect(() => createTestProviderV1({ historyLimit })).toThrow(/historyLimit must be a whole number of at least 1/);
  });
});
