import { checkKeyedCode, isKeyedCodeRequest, issueKeyedCode, type KeyedCodeScheme } from '@verikit/provider-utils';
import type { PhoneCheckResultV1 } from '@verikit/provider';

/**
 * WhatsApp codes on Termii's current API (developers.termii.com/send-whatsapp-token): the caller makes the
 * code and Termii only delivers it, so there is no `pinId` to verify against. The requestId carries its expiry, a
 * nonce and a keyed hash of (expiry, nonce, code), keyed with a key derived from the API key (`issueKeyedCode`).
 */
const scheme: KeyedCodeScheme = { prefix: 'wa1', label: 'verikit termii whatsapp code v1' };

/** A code of `length` digits (Termii takes 4 to 6) and the requestId that proves it later. */
export function issueWhatsAppCode(
  apiKey: string,
  length: number,
  ttlMinutes: number,
  now = Date.now(),
): { code: string; requestId: string } {
  return issueKeyedCode(scheme, apiKey, Math.min(Math.max(length, 4), 6), ttlMinutes, now);
}

/** True when `requestId` is one {@link issueWhatsAppCode} made (by its shape). */
export function isWhatsAppCodeRequest(requestId: string): boolean {
  return isKeyedCodeRequest(scheme, requestId);
}

/** Checks `code` against a requestId {@link issueWhatsAppCode} made (`checkKeyedCode`). */
export function checkWhatsAppCode(
  apiKey: string,
  requestId: string,
  code: string,
  now = Date.now(),
): PhoneCheckResultV1 {
  return checkKeyedCode(scheme, apiKey, requestId, code, now);
}
