import { describe, expect, it } from 'vitest';
import { maskDigits, safeProviderMessage } from './provider-message.js';

describe('safeProviderMessage masks numbers, codes and identity numbers, not verikit’s own durations', () => {
  it('leaves a duration in milliseconds as written', () => {
    expect(safeProviderMessage('demo sms.send: the service did not answer within 10000 ms')).toBe(
      'demo sms.send: the service did not answer within 10000 ms',
    );
    expect(maskDigits('no answer within 1500 ms.')).toBe('no answer within 1500 ms.');
  });

  it('masks every other run of 4 or more digits, whole, even one next to a duration', () => {
    expect(safeProviderMessage('BVN 12345678901 is not registered (code 123456)')).toBe(
      'BVN ••••••••••• is not registered (code ••••••)',
    );
    expect(maskDigits('+2348012345678 msg')).toBe('+•••••••••••• msg');
    expect(maskDigits('code 123456ms')).toBe('code ••••••ms');
    expect(maskDigits('08012345678 after 10000 ms')).toBe('••••••••••• after 10000 ms');
  });
});
