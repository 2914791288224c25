import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { PhoneCheckResultV1 } from '@verikit/provider';

/**
 * How a provider names the codes it makes itself (where the service only delivers a code the caller made):
 * the requestId's prefix, and the label its key is derived under. Two schemes never share a key.
 */
export interface KeyedCodeScheme {
  /** The requestId's first part, e.g. `wa1`: how a check knows the requestId is such a code's. */
  readonly prefix: string;
  /** What the key is derived under, with a version, e.g. `verikit termii whatsapp code v1`. */
  readonly label: string;
}

const keyOf = (scheme: KeyedCodeScheme, secret: string) => createHmac('sha256', secret).update(scheme.label).digest();

const macOf = (scheme: KeyedCodeScheme, secret: string, expiresAt: number, nonce: string, code: string) =>
  createHmac('sha256', keyOf(scheme, secret)).update(`${expiresAt}|${nonce}|${code}`).digest('base64url');

/** A code made by {@link issueKeyedCode}, and the requestId that proves it. */
export interface KeyedCode {
  /** The code to send, in clear: never stored. */
  readonly code: string;
  /** `<prefix>.<expiry>.<nonce>.<mac>`: no code and no phone number in it. */
  readonly requestId: string;
}

/**
 * A code of `digits` digits (or the `given` one) and the requestId that proves it later: `<prefix>.<expiry>.<nonce>.<mac>`, where the
 * MAC is HMAC-SHA256 over (expiry, nonce, code) under a key derived from the provider's `secret`. The code is kept
 * nowhere; the requestId holds no code and no phone number (docs/decisions/0961).
 */
export function issueKeyedCode(
  scheme: KeyedCodeScheme,
  secret: string,
  digits: number,
  ttlMinutes: number,
  now = Date.now(),
  given?: string,
): KeyedCode {
  const code = given ?? Array.from({ length: digits }, () => String(randomInt(10))).join('');
  const expiresAt = Math.floor(now / 1000) + ttlMinutes * 60;
  const nonce = randomBytes(12).toString('base64url');
  return { code, requestId: `${scheme.prefix}.${expiresAt}.${nonce}.${macOf(scheme, secret, expiresAt, nonce, code)}` };
}

/** True when `requestId` has the shape {@link issueKeyedCode} gives under `scheme` (its prefix). */
export function isKeyedCodeRequest(scheme: KeyedCodeScheme, requestId: string): boolean {
  return requestId.startsWith(`${scheme.prefix}.`);
}

/**
 * Checks `code` against a requestId {@link issueKeyedCode} made, in constant time: `{ valid: true }` for the code it
 * was made with, `expired` after its time to live, `{ valid: false }` otherwise (a malformed or altered requestId
 * included). Attempts are counted by the flow, which refuses checks once they are used up.
 */
export function checkKeyedCode(
  scheme: KeyedCodeScheme,
  secret: string,
  requestId: string,
  code: string,
  now = Date.now(),
): PhoneCheckResultV1 {
  const parts = requestId.split('.');
  if (parts.length !== 4 || parts[0] !== scheme.prefix) return { valid: false };
  const [, expires, nonce, mac] = parts as [string, string, string, string];
  if (!/^\d{1,12}$/.test(expires)) return { valid: false };
  const expiresAt = Number(expires);
  const expected = Buffer.from(macOf(scheme, secret, expiresAt, nonce, code));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { valid: false };
  return Math.floor(now / 1000) > expiresAt ? { valid: false, reason: 'expired' } : { valid: true };
}
