import { InvalidInputError, phoneNumberSchema, ProviderUnavailableError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { failureOf } from './failure-of.js';
import { freshPhoneNumber } from './fresh-phone-number.js';
import { expectNoSecrets, reachableText } from './reachable-text.js';

describe('freshPhoneNumber', () => {
  it('gives valid Nigerian numbers, never twice, never in the sandbox range (+234803…)', () => {
    const numbers = Array.from({ length: 2000 }, () => freshPhoneNumber());
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const number of numbers) {
      expect(phoneNumberSchema.safeParse(number).success, number).toBe(true);
      expect(number).toMatch(/^\+234806\d{7}$/);
    }
  });
});

describe('failureOf', () => {
  it('gives the verikit error a call rejects with', async () => {
    const error = new InvalidInputError([{ field: 'to', message: 'is required' }]);
    await expect(failureOf(Promise.reject(error))).resolves.toBe(error);
  });
  it('fails when the call resolves, or rejects with something that is not a verikit error', async () => {
    await expect(failureOf(Promise.resolve('sent'))).rejects.toThrow('expected the call to fail');
    await expect(failureOf(Promise.reject(new Error('plain')))).rejects.toThrow(
      'expected a verikit error, got: Error: plain',
    );
  });
});

describe('reachableText and expectNoSecrets', () => {
  it('reaches hidden properties and the cause chain', () => {
    const cause = new Error('inner 5ecret-cause');
    const error = new ProviderUnavailableError('down', { cause });
    Object.defineProperty(error, 'hidden', { value: { deep: ['5ecret-hidden'] }, enumerable: false });
    const text = reachableText(error);
    expect(text).toContain('5ecret-cause');
    expect(text).toContain('5ecret-hidden');
    expect(() => expectNoSecrets(error, ['5ecret-hidden'])).toThrow('a secret leaked: 5ec…');
    expect(() => expectNoSecrets(error, ['absent-value'])).not.toThrow();
  });
  it('survives circular values', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular['self'] = circular;
    expect(reachableText(circular)).toContain('loop');
  });
});
