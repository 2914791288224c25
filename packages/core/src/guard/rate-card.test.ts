import { describe, expect, it } from 'vitest';
import { createTestProviderV1 } from '@verikit/testing';
import { InvalidInputError } from '@verikit/provider';
import { createVerikit } from '../engine/create-verikit.js';
import { CostLedger } from './cost-ledger.js';
import { RatePricer } from './rate-card.js';

const secret = 'rate-card-test-secret-0123456789abcdefgh';

describe('RatePricer', () => {
  const pricer = new RatePricer({
    currency: 'NGN',
    prices: [
      { channel: 'sms', price: 4.5 },
      { provider: 'twilio', channel: 'sms', price: 60 },
      { provider: 'twilio', channel: 'sms', country: 'GH', price: 70.25 },
      { channel: 'voice', price: 12 },
    ],
  });

  it('takes the row naming the most fields, in millionths', () => {
    expect(pricer.microsOf({ provider: 'termii', channel: 'sms', country: 'NG' })).toBe(4_500_000);
    expect(pricer.microsOf({ provider: 'twilio', channel: 'sms', country: 'NG' })).toBe(60_000_000);
    expect(pricer.microsOf({ provider: 'twilio', channel: 'sms', country: 'GH' })).toBe(70_250_000);
    expect(pricer.microsOf({ provider: 'twilio', channel: 'whatsapp', country: 'GH' })).toBeUndefined();
  });

  it('gives the highest price that may apply to a send whose provider is not known yet', () => {
    expect(pricer.ceilingOf('sms', 'GH')).toBe(70_250_000);
    expect(pricer.ceilingOf('sms', 'NG')).toBe(60_000_000);
    expect(pricer.ceilingOf('voice', 'NG')).toBe(12_000_000);
  });
});

describe('CostLedger', () => {
  it('sums in millionths, exact whatever the order, and shows unpriced sends', () => {
    const ledger = new CostLedger('NGN');
    for (let index = 0; index < 10; index += 1)
      ledger.add({ provider: 'termii', channel: 'sms', country: 'NG' }, 100_000);
    ledger.add({ provider: 'termii', channel: 'voice', country: 'NG' }, undefined);
    const report = ledger.report();
    expect(report.total).toBe(1);
    expect(report.sends).toBe(11);
    expect(report.lines.map((line) => [line.channel, line.sends, line.cost, line.unpriced])).toEqual([
      ['sms', 10, 1, 0],
      ['voice', 1, 0, 1],
    ]);
  });
});

describe("the engine's cost ledger", () => {
  it('prices each send that went out on the provider that sent it; none without a rate card', async () => {
    const provider = createTestProviderV1();
    const verikit = createVerikit({
      provider,
      secret,
      guard: { prices: { currency: 'NGN', prices: [{ provider: 'test', channel: 'sms', price: 4.5 }] } },
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234567' });
    expect(verikit.costs()).toMatchObject({ currency: 'NGN', sends: 1, total: 4.5 });
    await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode('+2348031234567')! });
    expect(verikit.costs()).toMatchObject({ sends: 1, total: 4.5 });
    expect(verikit.costs()!.lines).toEqual([
      { provider: 'test', channel: 'sms', country: 'NG', sends: 1, cost: 4.5, unpriced: 0 },
    ]);
    expect(createVerikit({ provider, secret }).costs()).toBeUndefined();
  });

  it('refuses a rate card that is not one, naming the field', () => {
    const provider = createTestProviderV1();
    const attempt = (prices: unknown) => () => createVerikit({ provider, secret, guard: { prices: prices as never } });
    expect(attempt({ currency: 'naira', prices: [{ price: 1 }] })).toThrow(InvalidInputError);
    expect(attempt({ currency: 'NGN', prices: [{ channel: 'fax', price: 1 }] })).toThrow(
      /guard\.prices\.prices\.0\.channel/,
    );
    expect(attempt({ currency: 'NGN', prices: [{ price: -1 }] })).toThrow(/must be 0 or more/);
  });
});
