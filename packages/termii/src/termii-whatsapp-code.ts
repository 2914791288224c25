import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { PhoneCheckResultV1 } from '@verikit/provider';

/**
 * WhatsApp codes on Termii's current API (developers.termii.com/send-whatsapp-token): the caller makes the
 * code and Termii only delivers it, so there is no `pinId` to verify against. The code is kept nowhere:
 * the requestId carries its expiry, a nonce and a keyed hash of (expiry, nonce, code), keyed with a key
 * derived from the API key; no phone number and no code in clear. A check recomputes the hash; nothing else can, without the API key.
 */
const prefix = 'wa1';

const keyOf = (apiKey: string) => createHmac('sha256', apiKey).update('verikit termii whatsapp code v1').digest();

const macOf = (apiKey: string, expiresAt: number, nonce: string, code: string) =>
  createHmac('sha256', keyOf(apiKey)).update(`${expiresAt}|${nonce}|${code}`).digest('base64url');

/** A code of `length` digits (Termii takes 4 to 6) and the requestId that proves it later. */
export function issueWhatsAppCode(
  apiKey: string,
  length: number,
  ttlMinutes: number,
  now = Date.now(),
): { code: string; requestId: string } {
  const digits = Math.min(Math.max(length, 4), 6);
  const code = Array.from({ length: digits }, () => String(randomInt(10))).join('');
  const expiresAt = Math.floor(now / 1000) + ttlMinutes * 60;
  const nonce = randomBytes(12).toString('base64url');
  return { code, requestId: `${prefix}.${expiresAt}.${nonce}.${macOf(apiKey, expiresAt, nonce, code)}` };
}

/** True when `requestId` is one {@link issueWhatsAppCode} made (by its shape). */
export function isWhatsAppCodeRequest(requestId: string): boolean {
  return requestId.startsWith(`${prefix}.`);
}

/**
 * Checks `code` against a requestId {@link issueWhatsAppCode} made: `{ valid: true }` for the code it was
 * made with, `expired` after its time to live, `{ valid: false }` otherwise (a malformed or altered requestId
 * included). Attempts are counted by the flow, which refuses checks once they are used up.
 */
export function checkWhatsAppCode(
  apiKey: string,
  requestId: string,
  code: string,
  now = Date.now(),
): PhoneCheckResultV1 {
  const parts = requestId.split('.');
  if (parts.length !== 4) return { valid: false };
  const [, expires, nonce, mac] = parts as [string, string, string, string];
  if (!/^\d{1,12}$/.test(expires)) return { valid: false };
  const expiresAt = Number(expires);
  const expected = Buffer.from(macOf(apiKey, expiresAt, nonce, code));
  const given = Buffer.from(mac);
  const matches = expected.length === given.length && timingSafeEqual(expected, given);
  if (!matches) return { valid: false };
  return Math.floor(now / 1000) > expiresAt ? { valid: false, reason: 'expired' } : { valid: true };
}
