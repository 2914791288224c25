import { describe, expect, it } from 'vitest';
import { InvalidInputError, RateLimitedError } from '@verikit/provider';
import { setup } from '../engine/engine.fixtures.js';
import { burst, consecutiveNumbers } from './send-guard.fixtures.js';

/** 300 consecutive valid Nigerian numbers. */
const numbers = consecutiveNumbers('+2348012340000', 300);
const prices = {
  currency: 'NGN',
  prices: [
    { channel: 'sms' as const, price: 4.5 },
    { provider: 'dear', channel: 'sms' as const, price: 6 },
    { channel: 'voice' as const, price: 12 },
  ],
};
const countsOff = { perClient: false, perPrefix: false, global: false } as const;

describe('a budget in money', () => {
  it('stops 300 starts once the hour is spent, at the dearest price that may apply; the refusals cost nothing', async () => {
    // 60 NGN at 6 NGN a send (the dearest SMS row, whoever ends up sending): exactly 10 sends.
    const { verikit, provider } = setup({ guard: { ...countsOff, prices, budget: { perHour: 60 } } });
    const result = await burst(verikit, numbers, (index) => `client-${index}`);
    expect(result.other).toEqual([]);
    expect(result.admitted).toHaveLength(10);
    expect(provider.callsOf('phone.send')).toHaveLength(10);
    const refusal = result.refused[0]!;
    expect(RateLimitedError.isInstance(refusal)).toBe(true);
    expect(refusal.message).toBe('the hourly budget of 60 NGN is spent');
    expect(refusal.retryAfterMs).toBeGreaterThan(0);
    // What was spent is at most the budget: the ledger priced each send on its real sender (the test provider, 4.5).
    expect(verikit.costs()).toMatchObject({ sends: 10, total: 45 });
  });

  it('a country budget holds back only that country', async () => {
    const { verikit } = setup({ guard: { ...countsOff, prices, budget: { countries: { NG: { perDay: 12 } } } } });
    const result = await burst(verikit, numbers.slice(0, 5), (index) => `client-${index}`);
    expect(result.admitted).toHaveLength(2);
    expect(result.refused[0]!.message).toBe('the daily NG budget of 12 NGN is spent');
    await expect(verikit.start({ kind: 'phone', phoneNumber: '+233241234567' })).resolves.toMatchObject({
      status: 'awaiting-code',
    });
  });

  it('charges a voice send at the voice price, and flows of no channel (USSD) nothing', async () => {
    const { verikit } = setup({ guard: { ...countsOff, prices, budget: { perHour: 24 } } });
    await verikit.start({ kind: 'phone', phoneNumber: numbers[0]!, channels: ['voice'] });
    await verikit.start({ kind: 'ussd', phoneNumber: numbers[1]! });
    await verikit.start({ kind: 'phone', phoneNumber: numbers[2]!, channels: ['voice'] });
    await expect(verikit.start({ kind: 'phone', phoneNumber: numbers[3]! })).rejects.toThrow(
      'the hourly budget of 24 NGN is spent',
    );
    await expect(verikit.start({ kind: 'ussd', phoneNumber: numbers[4]! })).resolves.toBeDefined();
  });

  it('is refused without a rate card, or when it is not money, naming the field', () => {
    expect(() => setup({ guard: { budget: { perHour: 10 } } })).toThrow(InvalidInputError);
    expect(() => setup({ guard: { budget: { perHour: 10 } } })).toThrow(/guard\.budget needs guard\.prices/);
    expect(() => setup({ guard: { prices, budget: { perHour: -1 } } })).toThrow(/guard\.budget\.perHour/);
    expect(() => setup({ guard: { prices, budget: { countries: { Nigeria: { perDay: 1 } } } } })).toThrow(
      /guard\.budget\.countries/,
    );
  });
});
