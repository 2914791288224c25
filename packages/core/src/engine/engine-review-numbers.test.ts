import { InvalidInputError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { setup } from './engine.fixtures.js';

const reviewer = '+2348031110001';
const code = '40718293';
const reviewNumbers = [{ phoneNumber: reviewer, code }];

describe('review numbers: a fixed code for a few listed numbers', () => {
  it('verifies a listed number with its fixed code, never calls the provider, and logs each use at warning', async () => {
    const { verikit, provider, logs, raw } = setup({ reviewNumbers });
    expect(logs.find((line) => line.message === 'verikit.review_numbers.enabled')?.level).toBe('warn');
    const flow = await verikit.start({ kind: 'phone', phoneNumber: reviewer });
    expect(flow.status).toBe('awaiting-code');
    const done = await verikit.send(flow.id, { type: 'submit-code', code });
    expect(done.status).toBe('verified');
    expect(provider.calls).toHaveLength(0);
    const uses = logs.filter((line) => line.message === 'verikit.review_number.used');
    expect(uses.map((line) => [line.level, line.fields?.['step']])).toEqual([
      ['warn', 'send'],
      ['warn', 'check'],
    ]);
    // The code is neither logged nor stored; the number is logged masked only.
    expect(JSON.stringify(logs) + raw()).not.toContain(code);
    expect(JSON.stringify(logs)).not.toContain(reviewer);
  });

  it('counts a wrong code as a wrong code, within the flow’s attempts', async () => {
    const { verikit } = setup({ reviewNumbers });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: reviewer });
    const wrong = await verikit.send(flow.id, { type: 'submit-code', code: '40718294' });
    expect(wrong.status).toBe('awaiting-code');
    expect(wrong.attemptsLeft).toBe(flow.attemptsLeft! - 1);
  });

  it('leaves every other number to the provider', async () => {
    const { verikit, provider } = setup({ reviewNumbers });
    const phoneNumber = '+2348031110002';
    const flow = await verikit.start({ kind: 'phone', phoneNumber });
    expect(provider.callsOf('phone.send')).toHaveLength(1);
    const refused = await verikit.send(flow.id, { type: 'submit-code', code });
    expect(refused.status).not.toBe('verified');
  });

  it('fails a review flow closed once its number is no longer listed (another instance, a config change)', async () => {
    const listed = setup({ reviewNumbers });
    const flow = await listed.verikit.start({ kind: 'phone', phoneNumber: reviewer });
    const unlisted = setup({ store: listed.store, clock: listed.clock });
    const after = await unlisted.verikit.send(flow.id, { type: 'submit-code', code });
    expect(after.status).not.toBe('verified');
    expect(unlisted.provider.calls).toHaveLength(0);
  });

  it('is off unless set, and refuses a long list, weak codes, bad or repeated numbers', () => {
    expect(setup().logs.some((line) => line.message.startsWith('verikit.review_number'))).toBe(false);
    const refused = (list: unknown) => {
      try {
        setup({ reviewNumbers: list as never });
      } catch (error) {
        expect(InvalidInputError.isInstance(error)).toBe(true);
        return (error as InvalidInputError).issues[0];
      }
      throw new Error('expected a refusal');
    };
    const six = Array.from({ length: 6 }, (_, index) => ({ phoneNumber: `+234803111001${index}`, code }));
    expect(refused(six)?.field).toBe('reviewNumbers');
    expect(refused([])?.field).toBe('reviewNumbers');
    for (const weak of ['123456', '12345678', '98765432', '11112222', '12341234', '0000000000', 'abcdefgh'])
      expect(refused([{ phoneNumber: reviewer, code: weak }])?.field).toBe('reviewNumbers.0.code');
    expect(refused([{ phoneNumber: '08031110001', code }])?.field).toBe('reviewNumbers.0.phoneNumber');
    expect(refused([...reviewNumbers, { phoneNumber: reviewer, code: '51829374' }])?.field).toBe(
      'reviewNumbers.1.phoneNumber',
    );
    // Two spellings of one handset are one number listed twice.
    expect(refused([...reviewNumbers, { phoneNumber: '+234 803 111 0001', code: '51829374' }])?.field).toBe(
      'reviewNumbers.1.phoneNumber',
    );
  });

  it('reads a listed number as every number is read: `+2340…`, spaces or a national form match the E.164 start', async () => {
    for (const [listed, defaultCountry] of [
      ['+2340803 111 0001', undefined],
      ['+234 803 111 0001', undefined],
      ['0803-111-0001', 'NG'],
    ] as const) {
      const { verikit, provider, logs } = setup({
        reviewNumbers: [{ phoneNumber: listed, code }],
        ...(defaultCountry === undefined ? {} : { defaultCountry }),
      });
      const flow = await verikit.start({ kind: 'phone', phoneNumber: reviewer });
      expect([listed, (await verikit.send(flow.id, { type: 'submit-code', code })).status]).toEqual([
        listed,
        'verified',
      ]);
      expect(provider.calls).toHaveLength(0);
      expect(JSON.stringify(logs)).not.toContain('0803');
    }
  });
});
