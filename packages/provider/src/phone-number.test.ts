import { afterEach, describe, expect, it, vi } from 'vitest';
import { phoneNumberLibrary, phoneNumberReader, readPhoneNumber, type PhoneNumberRules } from './phone-number.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a phoneNumberReader reads a number it parsed a moment ago without asking the library again', () => {
  it('parses a number once when it is read for any use and then for a channel (as a phone start does)', () => {
    const parse = vi.spyOn(phoneNumberLibrary(), 'parsePhoneNumberWithError');
    const read = phoneNumberReader();
    const typed = '+2348031234567';
    expect(read(typed, { use: 'any' })).toEqual({ ok: true, e164: typed, country: 'NG' });
    expect(read(typed, { use: 'sms' })).toEqual({ ok: true, e164: typed, country: 'NG' });
    expect(read(typed, { use: 'voice' })).toEqual({ ok: true, e164: typed, country: 'NG' });
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('keeps nothing in readPhoneNumber or between readers: each parses the number itself', () => {
    const parse = vi.spyOn(phoneNumberLibrary(), 'parsePhoneNumberWithError');
    const typed = '+2348031234567';
    readPhoneNumber(typed, { use: 'any' });
    readPhoneNumber(typed, { use: 'sms' });
    phoneNumberReader()(typed, { use: 'sms' });
    phoneNumberReader()(typed, { use: 'voice' });
    expect(parse).toHaveBeenCalledTimes(4);
  });

  it('answers each reading as a fresh parse would, whatever was read before it', () => {
    const readings: Array<[string, PhoneNumberRules]> = [
      ['08031234567', { defaultCountry: 'NG', use: 'sms' }],
      ['08031234567', { defaultCountry: 'GB', use: 'sms' }],
      ['08031234567', { use: 'sms' }],
      ['+2348031234567', { use: 'sms' }],
      ['+234 803 123 4567', { use: 'any' }],
      ['+2341234567', { use: 'any' }],
      ['+2341234567', { use: 'sms' }],
      ['+442079460000', { use: 'sms' }],
      ['+442079460000', { use: 'voice' }],
      ['+2348031234567', { defaultCountry: 'NG', use: 'ussd' }],
      ['+99912345678', { use: 'any' }],
      ['020 7946 0000', { defaultCountry: 'GB', use: 'any' }],
      ['020 7946 0000', { defaultCountry: 'GB', use: 'sms' }],
    ];
    const fresh = readings.map(([value, rules]) => readPhoneNumber(value, rules));
    const read = phoneNumberReader();
    const inTurn = readings.map(([value, rules]) => read(value, rules));
    expect(inTurn).toEqual(fresh);
    expect(fresh.map((reading) => (reading.ok ? reading.e164 : reading.problem))).toEqual([
      '+2348031234567',
      'invalid',
      'needs_country_code',
      '+2348031234567',
      '+2348031234567',
      'too_short',
      'too_short',
      'not_mobile',
      '+442079460000',
      '+2348031234567',
      'unknown_country_code',
      '+442079460000',
      'not_mobile',
    ]);
  });
});
