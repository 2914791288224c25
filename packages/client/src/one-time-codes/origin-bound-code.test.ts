import { describe, expect, it } from 'vitest';
import { isCodeForHost, parseOriginBoundCode } from './origin-bound-code.js';

// The cases are the WICG draft's own examples ("Authoring", REFERENCE.md), then its parsing steps' edges.
describe('parseOriginBoundCode', () => {
  it("reads the draft's examples", () => {
    expect(parseOriginBoundCode('747723 is your ExampleCo authentication code.\n\n@example.com #747723')).toEqual({
      host: 'example.com',
      code: '747723',
    });
    expect(
      parseOriginBoundCode('747723 is your ExampleCo authentication code.\n\n@example.com #747723 @ecommerce.example'),
    ).toEqual({ host: 'example.com', code: '747723', embeddedHost: 'ecommerce.example' });
    expect(parseOriginBoundCode('@example.com #747723 @ecommerce.example $future')).toEqual({
      host: 'example.com',
      code: '747723',
      embeddedHost: 'ecommerce.example',
    });
  });

  it("refuses what the draft's examples refuse", () => {
    expect(parseOriginBoundCode('something @example.com #747723')).toBeUndefined();
    expect(parseOriginBoundCode('#747723 @ecommerce.example @example.com')).toBeUndefined();
    expect(parseOriginBoundCode('@example.com code #747723')).toBeUndefined();
  });

  it('reads only the last line, after CRLF or CR; two spaces, an empty host or code, or no line at all is no code', () => {
    expect(parseOriginBoundCode('Your code\r\n\r\n@example.com #123456')).toMatchObject({ code: '123456' });
    expect(parseOriginBoundCode('Your code\r\r@example.com #123456')).toMatchObject({ code: '123456' });
    expect(parseOriginBoundCode('@example.com #123456\nthanks')).toBeUndefined();
    expect(parseOriginBoundCode('@example.com  #123456')).toBeUndefined();
    expect(parseOriginBoundCode('@ #123456')).toBeUndefined();
    expect(parseOriginBoundCode('@example.com #')).toBeUndefined();
    expect(parseOriginBoundCode('Your verification code is 123456')).toBeUndefined();
    // An Android app hash after the code is trailing text: ignored, and no embedded host.
    expect(parseOriginBoundCode('Code 123456\n\n@example.com #123456 FA+9qCX9VSu')).toEqual({
      host: 'example.com',
      code: '123456',
    });
  });
});

describe('isCodeForHost', () => {
  it('the same host, or a page on a subdomain of it; never another site or a parent of the page', () => {
    expect(isCodeForHost('example.com', 'example.com')).toBe(true);
    expect(isCodeForHost('Example.COM', 'example.com')).toBe(true);
    expect(isCodeForHost('example.com', 'www.example.com')).toBe(true);
    expect(isCodeForHost('www.example.com', 'example.com')).toBe(false);
    expect(isCodeForHost('example.com', 'evilexample.com')).toBe(false);
    expect(isCodeForHost('example.com', 'example.com.evil.test')).toBe(false);
    expect(isCodeForHost('com', 'example.com')).toBe(false);
  });
});
