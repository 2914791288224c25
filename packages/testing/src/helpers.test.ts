import { InvalidInputError, phoneNumberSchema, ProviderUnavailableError } from '@verikit/provider';
import { describe, expect, it } from 'vitest';
import { failureOf } from './failure-of.js';
import { freshPhoneNumber } from './fresh-phone-number.js';
import { leakWatch } from './leak-watch.js';
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
  it('takes a function too: the verikit error it throws or rejects with', async () => {
    const error = new InvalidInputError([{ field: 'apiKey', message: 'is required' }]);
    await expect(
      failureOf(() => {
        throw error;
      }),
    ).resolves.toBe(error);
    await expect(failureOf(async () => Promise.reject(error))).resolves.toBe(error);
    await expect(failureOf(() => 'made')).rejects.toThrow('expected the call to fail');
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
    expect(() => expectNoSecrets(error, ['5ecret-hidden'])).toThrow(
      'a secret leaked: secrets[0] (13 characters) is reachable from the value',
    );
    // A short secret is not printed, not even in part.
    const short = new Error('pin 123');
    expect(() => expectNoSecrets(short, ['absent-value', '123'])).toThrow('a secret leaked: secrets[1] (3 characters)');
    expect(() => expectNoSecrets(short, ['123'])).toThrow(/^a secret leaked: secrets\[0\] \(3 characters\)[^1]*$/);
    expect(() => expectNoSecrets(error, ['absent-value'])).not.toThrow();
  });
  it('refuses a missing or empty secret, naming its place, rather than checking nothing', () => {
    const settings: { apiKey?: string } = {};
    const leaked = new Error('has 5ecret-hidden');
    expect(() => expectNoSecrets(leaked, ['5ecret-hidden', settings.apiKey!])).toThrow(
      'expectNoSecrets: secrets[1] is undefined, not a secret: nothing would be checked for it',
    );
    expect(() => expectNoSecrets({}, [''])).toThrow('secrets[0] is an empty string');
    expect(() => expectNoSecrets({}, [])).toThrow('expectNoSecrets: no secrets given');
    expect(() => leakWatch().expectNoSecrets([settings.apiKey!])).toThrow('secrets[0] is undefined');
  });
  it('survives circular values', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular['self'] = circular;
    expect(reachableText(circular)).toContain('loop');
  });
});

describe('leakWatch', () => {
  const secret = 'hunter2-secret-value';
  it("finds a secret in a kept error's cause, in a log line's fields, or in a request a hook saw", async () => {
    const inCause = leakWatch();
    await inCause.failure(Promise.reject(new ProviderUnavailableError('down', { cause: new Error(`key ${secret}`) })));
    expect(() => inCause.expectNoSecrets([secret])).toThrow('a secret leaked: secrets[0] (20 characters)');

    const inLog = leakWatch();
    inLog.context().logger.warn('verikit.x.failed', { header: `Bearer ${secret}` });
    expect(() => inLog.expectNoSecrets([secret])).toThrow('a secret leaked');

    const inHook = leakWatch();
    for (const hook of inHook.hooks.beforeRequest)
      hook(new Request('http://127.0.0.1/x', { headers: { authorization: secret } }));
    expect(() => inHook.expectNoSecrets([secret])).toThrow('a secret leaked');
    expect(inHook.kept).toEqual({ errors: 0, requests: 1, lines: 0 });
  });
  it('passes when nothing kept carries the secret, and gives each context its own key', async () => {
    const watch = leakWatch();
    await watch.failure(Promise.reject(new ProviderUnavailableError('down')));
    watch.keep({ note: 'no secret here' });
    watch.logger.info('verikit.x.sent', { to: '+234***5678' });
    watch.expectNoSecrets([secret]);
    expect(watch.kept).toEqual({ errors: 2, requests: 0, lines: 1 });
    expect(watch.context().idempotencyKey).not.toBe(watch.context().idempotencyKey);
  });
});

describe('leakWatch.fetch', () => {
  it('keeps the URL, headers and body of each request it passes on', async () => {
    const watch = leakWatch();
    const answer = await watch.fetch('data:text/plain,ok', { method: 'GET', headers: { 'x-a': '1' } });
    expect(await answer.text()).toBe('ok');
    expect(watch.sent).toEqual([{ url: 'data:text/plain,ok', headers: { 'x-a': '1' }, body: '' }]);
  });
});
