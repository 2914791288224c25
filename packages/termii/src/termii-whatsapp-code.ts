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

/**
 * SMS codes sent on the messaging API (`smsCodes: 'messaging'`): made and checked the same way, under a scheme of
 * their own, so a WhatsApp requestId never passes as an SMS one. Send message answers with the `message_id` Termii's
 * delivery reports name, which Send Token does not: the flow then hears whether its SMS code arrived.
 */
const smsScheme: KeyedCodeScheme = { prefix: 'sm1', label: 'verikit termii sms code v1' };

/** An SMS code of `length` digits (4 to 8, as Termii's own) and the requestId that proves it later. */
export function issueSmsCode(
  apiKey: string,
  length: number,
  ttlMinutes: number,
  now = Date.now(),
): { code: string; requestId: string } {
  return issueKeyedCode(smsScheme, apiKey, Math.min(Math.max(length, 4), 8), ttlMinutes, now);
}

/** True when `requestId` is one {@link issueWhatsAppCode} or {@link issueSmsCode} made (by its shape). */
export function isLocalCodeRequest(requestId: string): boolean {
  return isKeyedCodeRequest(scheme, requestId) || isKeyedCodeRequest(smsScheme, requestId);
}

/** Checks `code` against a requestId {@link issueWhatsAppCode} or {@link issueSmsCode} made (`checkKeyedCode`). */
export function checkLocalCode(apiKey: string, requestId: string, code: string, now = Date.now()): PhoneCheckResultV1 {
  return checkKeyedCode(isKeyedCodeRequest(smsScheme, requestId) ? smsScheme : scheme, apiKey, requestId, code, now);
}
