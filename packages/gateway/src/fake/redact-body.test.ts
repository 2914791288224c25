import { describe, expect, it } from 'vitest';
import { maskPhoneNumber } from './mask-phone-number.js';
import { redactBody } from './redact-body.js';

describe('redactBody: phone numbers', () => {
  it('keeps the country code and the last four digits of a phone number, so two lines can be told apart', () => {
    const first = redactBody({ phoneNumber: '+2348012345678' });
    const second = redactBody({ phoneNumber: '+2348012349999' });
    expect(first).toEqual({ phoneNumber: '+234••••••5678' });
    expect(second).toEqual({ phoneNumber: '+234••••••9999' });
    expect(redactBody({ from: 'Shop', to: '+2348031110008', message: 'hi' })).toEqual({
      from: 'Shop',
      to: '+234••••••0008',
      message: 'hi',
    });
  });
  it('still masks OTPs, codes and BVN/NIN whole, even next to a phone number', () => {
    const summary = redactBody({ number: '22222222222', otp: '777123', code: '482913', phoneNumber: '+2348031110008' });
    expect(summary).toEqual({ number: '•••', otp: '•••', code: '•••', phoneNumber: '+234••••••0008' });
    for (const hidden of ['22222222222', '2222', '777123', '482913', '2348031110008'])
      expect(JSON.stringify(summary)).not.toContain(hidden);
  });
  it('never shows a whole number: at least four digits stay masked, whatever the length', () => {
    for (let length = 1; length <= 15; length += 1) {
      const digits = '123456789012345'.slice(0, length);
      for (const text of [digits, `+${digits}`]) {
        const masked = maskPhoneNumber(text);
        expect(masked.match(/•/g)?.length ?? 0).toBeGreaterThanOrEqual(Math.min(4, length));
        expect(masked).not.toContain(digits);
        expect(masked.replaceAll('•', '').replace('+', '').length).toBeLessThanOrEqual(7);
      }
    }
    expect(maskPhoneNumber('+23480123')).toBe('+•••••123');
  });
  it('masks whole a phone field that is not a + and digits (spaces, letters, a hostile value)', () => {
    for (const value of [
      '+234 801 234 5678',
      '0801-234-5678',
      'call 08012345678 now',
      '+2348012345678\n',
      `+${'9'.repeat(40)}`,
    ]) {
      const masked = redactBody({ to: value })?.['to'];
      expect(masked).toMatch(/^•{1,16}$/);
    }
  });
  it('masks numbers given as JSON numbers too: a phone number by its last digits, any other run of 4+ digits whole', () => {
    expect(redactBody({ phoneNumber: 2348012345678, requestId: 48291377, channel: 1, count: 123 })).toEqual({
      phoneNumber: '234••••••5678',
      requestId: '••••••••',
      channel: 1,
      count: 123,
    });
  });
});
