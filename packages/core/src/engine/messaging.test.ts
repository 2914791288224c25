import { ProviderUnavailableError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { setup } from './engine.fixtures.js';

const phone = '+2348012345678';

describe('a message send has the deadline of every provider call (effectTimeoutMs)', () => {
  it('rejects with ProviderUnavailableError at the deadline, not before, from a provider that ignores its signal', async () => {
    const { verikit, provider } = setup({ policies: { effectTimeoutMs: 300 } });
    let signal: AbortSignal | undefined;
    const sms = provider.sms!;
    const send = sms.send;
    sms.send = (_input, context) => {
      signal = context.signal;
      // Never settles, and never looks at its signal.
      return new Promise(() => {});
    };
    const started = performance.now();
    const error = await verikit
      .sendSms({ from: 'Shop', to: phone, message: 'Welcome' })
      .catch((caught: unknown) => caught);
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('the provider did not answer before the deadline');
    expect(signal?.aborted).toBe(true);
    sms.send = send;
    expect(await verikit.sendSms({ from: 'Shop', to: phone, message: 'Welcome' })).toMatchObject({ provider: 'test' });
  });

  it('aborts the signal of a provider that heeds it, and the send rejects with the same typed error', async () => {
    const { verikit, provider } = setup({ policies: { effectTimeoutMs: 300 } });
    provider.setLatency(60_000);
    const error = await verikit
      .sendWhatsApp({ phoneNumber: phone, message: 'Welcome' })
      .catch((caught: unknown) => caught);
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(provider.outbox).toEqual([]);
  });

  it('passes a failure of the provider before the deadline on as it is', async () => {
    const { verikit, provider } = setup();
    provider.failNext('sms.send', new Error('refused by the operator'));
    await expect(verikit.sendSms({ from: 'Shop', to: phone, message: 'Welcome' })).rejects.toThrow(
      'refused by the operator',
    );
  });
});

describe('sendWhatsApp names its recipient `to`, as sendSms does', () => {
  it('takes `to` (as typed, parsed to E.164), and `phoneNumber` still, as the deprecated name', async () => {
    const { verikit, provider } = setup({ defaultCountry: 'NG' });
    expect(await verikit.sendWhatsApp({ to: '0801 234 5678', message: 'Welcome' })).toMatchObject({ provider: 'test' });
    expect(await verikit.sendWhatsApp({ phoneNumber: phone, message: 'Again' })).toMatchObject({ provider: 'test' });
    expect(provider.outbox.map((message) => [message.to, message.text])).toEqual([
      [phone, 'Welcome'],
      [phone, 'Again'],
    ]);
  });

  it('refuses no recipient naming `to`, and both names at once naming `phoneNumber`, sending nothing', async () => {
    const { verikit, provider } = setup();
    await expect(verikit.sendWhatsApp({ message: 'hi' } as never)).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'to',
      message: 'to is required',
    });
    await expect(verikit.sendWhatsApp({ to: phone, phoneNumber: phone, message: 'hi' } as never)).rejects.toMatchObject(
      { code: 'invalid_input', field: 'phoneNumber' },
    );
    expect(provider.outbox).toEqual([]);
  });
});
