import { describe, expect, it } from 'vitest';
import { androidAppHashSchema, fitsOneSms, originBoundHostSchema, originBoundText } from './origin-bound-message.js';

describe('originBoundHostSchema', () => {
  it('takes a DNS name, lower-cased', () => {
    for (const host of ['example.com', 'www.example.com', 'signup.verikit.ng', 'xn--bcher-kva.example', 'a-b.co'])
      expect(originBoundHostSchema.parse(host)).toBe(host);
    expect(originBoundHostSchema.parse('Example.COM')).toBe('example.com');
  });

  it('refuses anything that could change the last line or bind to something else', () => {
    for (const host of [
      'example.com\n@evil.example',
      'example.com #000000 @evil.example',
      'evil.example #1',
      'example.com@evil.example',
      'https://example.com',
      'example.com:443',
      'example.com/login',
      ' example.com',
      'example',
      'localhost',
      '127.0.0.1',
      '-bad.example',
      'bad-.example',
      'bücher.example',
      'a..b',
      `${'a'.repeat(64)}.com`,
      `${'a.'.repeat(130)}com`,
    ])
      expect(originBoundHostSchema.safeParse(host).success, JSON.stringify(host)).toBe(false);
    expect(originBoundHostSchema.safeParse('example.com\n').error?.issues[0]?.message).toMatch(/^must be a host name/);
  });
});

describe('originBoundText', () => {
  it('ends with @host #code, the app hash after it; the hash alone on the last line; nothing asked, the text', () => {
    expect(originBoundText('Your code is 123456', '123456', { host: 'example.com' })).toBe(
      'Your code is 123456\n\n@example.com #123456',
    );
    expect(originBoundText('Code < 1234 >', '< 1234 >', { host: 'example.com', appHash: 'FA+9qCX9VSu' })).toBe(
      'Code < 1234 >\n\n@example.com #< 1234 > FA+9qCX9VSu',
    );
    expect(originBoundText('Code 123456', '123456', { appHash: 'FA+9qCX9VSu' })).toBe('Code 123456\n\nFA+9qCX9VSu');
    expect(originBoundText('Code 123456', '123456', {})).toBe('Code 123456');
  });

  it('takes an app hash of 11 base64 characters only', () => {
    expect(androidAppHashSchema.safeParse('FA+9qCX9VSu').success).toBe(true);
    for (const hash of ['FA+9qCX9VS', 'FA+9qCX9VSuu', 'FA 9qCX9VSu', 'FA+9qCX9VS\n']) {
      expect(androidAppHashSchema.safeParse(hash).success).toBe(false);
    }
  });
});

describe('fitsOneSms', () => {
  it('160 GSM-7 septets (extension characters count two), or 70 characters of anything else', () => {
    expect(fitsOneSms('a'.repeat(160))).toBe(true);
    expect(fitsOneSms('a'.repeat(161))).toBe(false);
    expect(fitsOneSms(`${'a'.repeat(158)}€`)).toBe(true);
    expect(fitsOneSms(`${'a'.repeat(159)}€`)).toBe(false);
    expect(fitsOneSms(`Votre code : 123456\n\n@example.com #123456`)).toBe(true);
    expect(fitsOneSms(`${'ọ'.repeat(70)}`)).toBe(true);
    expect(fitsOneSms(`${'ọ'.repeat(71)}`)).toBe(false);
  });
});
