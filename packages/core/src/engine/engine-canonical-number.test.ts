import { describe, expect, it } from 'vitest';
import { InvalidInputError, RateLimitedError } from '@verikit/provider';
import { setup } from './engine.fixtures.js';

// Finding 5 of the attacker review: one handset, two numbers. Every number is parsed once, at the edge, into
// E.164; limits, routes, proofs and provider calls see only that form.
const canonical = '+2348012345678';
const sameHandset = ['+23408012345678', '+234 801 234 5678', '+234 (0) 801-234-5678', '00234 801 234 5678'];

async function refusal(call: () => Promise<unknown>): Promise<InvalidInputError> {
  const error = await call().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!InvalidInputError.isInstance(error)) throw new Error(`expected an InvalidInputError, got ${String(error)}`);
  return error;
}

describe('one handset is one number (finding 5)', () => {
  it('the trunk 0 after the country code and formatting make no second number: the hourly limit counts them as one', async () => {
    const { verikit, provider } = setup({ policies: { maxSendsPerHour: 5 } });
    for (const form of [canonical, ...sameHandset]) {
      expect((await verikit.start({ kind: 'phone', phoneNumber: form })).status).toBe('awaiting-code');
    }
    // Five sends to the handset, whatever the form: the sixth is refused, in any form.
    await expect(verikit.start({ kind: 'phone', phoneNumber: '+23408012345678' })).rejects.toSatisfy((error) =>
      RateLimitedError.isInstance(error),
    );
    expect(new Set(provider.callsOf('phone.send').map((call) => call.input.phoneNumber))).toEqual(new Set([canonical]));
  });

  it('a national number with a default country is the same number; without one it says the country code is missing', async () => {
    const { verikit, provider } = setup({ defaultCountry: 'NG' });
    await verikit.start({ kind: 'phone', phoneNumber: '0801 234 5678' });
    await verikit.sendSms({ from: 'Acme', to: '0801-234-5678', message: 'Welcome' });
    await verikit.sendWhatsApp({ phoneNumber: '(0801) 234 5678', message: 'Welcome' });
    expect(provider.callsOf('phone.send')[0]!.input.phoneNumber).toBe(canonical);
    expect(provider.callsOf('sms.send')[0]!.input.to).toBe(canonical);
    expect(provider.callsOf('whatsapp.send')[0]!.input.phoneNumber).toBe(canonical);

    const withoutCountry = setup();
    const error = await refusal(() => withoutCountry.verikit.start({ kind: 'phone', phoneNumber: '08012345678' }));
    expect(error).toMatchObject({
      field: 'phoneNumber',
      message: 'phoneNumber must start with + and the country code',
      messageId: 'verikit.error.phone_number.needs_country_code',
    });
  });

  it('the USSD result for the canonical number reaches a flow started with another form', async () => {
    const { verikit } = setup();
    const started = await verikit.start({ kind: 'ussd', phoneNumber: '+234 (0) 801 234 5678' });
    expect(
      await verikit.receive({
        id: 'delivery-canonical-1',
        event: { type: 'ussd-verification', phoneNumber: canonical, status: 'success' },
      }),
    ).toMatchObject({
      outcome: 'applied',
      flowId: started.id,
    });
    expect((await verikit.get(started.id)).status).toBe('verified');
  });

  it('the proof of a flow started with one form is redeemed for the number in another form', async () => {
    const { verikit, provider } = setup();
    const started = await verikit.start({ kind: 'phone', phoneNumber: '+23408012345678' });
    await verikit.send(started.id, { type: 'submit-code', code: provider.lastCode(canonical)! });
    const { token } = await verikit.issueProof(started.id);
    expect(await verikit.redeemProof(token, { phoneNumber: '+234 801 234 5678' })).toMatchObject({
      phoneNumber: canonical,
    });
  });

  it('codes go only to numbers that can receive them, and the error says why in words a person understands', async () => {
    const { verikit, provider } = setup({ defaultCountry: 'NG' });
    const cases: ReadonlyArray<[Record<string, unknown>, string, string]> = [
      [{ kind: 'phone', phoneNumber: '+234 201 234 5678' }, 'is not a mobile number', 'not_mobile'], // Lagos landline
      [{ kind: 'ussd', phoneNumber: '+2342012345678' }, 'is not a mobile number', 'not_mobile'],
      [
        { kind: 'phone', phoneNumber: '+18005550100', channel: 'voice' },
        'cannot receive calls',
        'cannot_receive_calls',
      ],
      [{ kind: 'phone', phoneNumber: '0801 234' }, 'is too short', 'too_short'],
      [{ kind: 'phone', phoneNumber: '+999 1234 5678' }, 'has an unknown country code', 'unknown_country_code'],
      [{ kind: 'phone', phoneNumber: '+234 801 234 5678 9999' }, 'is too long', 'too_long'],
      [{ kind: 'phone', phoneNumber: '+234 801 ABC 5678' }, 'must contain only digits', 'bad_characters'],
      [{ kind: 'phone', phoneNumber: '+2347000000000' }, 'is not a mobile number', 'not_mobile'], // valid by length only
    ];
    for (const [input, words, problem] of cases) {
      const error = await refusal(() => verikit.start(input as never));
      expect(error.field, JSON.stringify(input)).toBe('phoneNumber');
      expect(error.message, JSON.stringify(input)).toContain(words);
      expect(error.messageId, JSON.stringify(input)).toBe(`verikit.error.phone_number.${problem}`);
    }
    // A landline takes a voice code.
    expect((await verikit.start({ kind: 'phone', phoneNumber: '+2342012345678', channel: 'voice' })).status).toBe(
      'awaiting-code',
    );
    const sms = await refusal(() => verikit.sendSms({ from: 'Acme', to: '+2342012345678', message: 'hi' }));
    expect([sms.field, sms.messageId]).toEqual(['to', 'verikit.error.phone_number.not_mobile']);
    expect(provider.callsOf('sms.send')).toHaveLength(0);
  });

  it('a value of the wrong type says its type, a missing one that it is required', async () => {
    const { verikit } = setup();
    expect((await refusal(() => verikit.start({ kind: 'phone', phoneNumber: 2348012345678 } as never))).message).toBe(
      'phoneNumber must be a string',
    );
    expect((await refusal(() => verikit.start({ kind: 'phone' } as never))).message).toBe('phoneNumber is required');
    expect((await refusal(() => verikit.sendSms({ to: canonical, message: 'hi', from: 42 } as never))).message).toBe(
      'from must be a string',
    );
  });

  it('the default country must be one the number library knows', () => {
    expect(() => setup({ defaultCountry: 'XX' })).toThrow('defaultCountry must be a country code');
  });
});
