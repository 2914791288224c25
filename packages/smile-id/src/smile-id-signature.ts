import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Smile ID's request signature, as its docs and its Node SDK define it: the base64 HMAC-SHA256, under the API key, of
 * the ISO 8601 timestamp, the partner id and `sid_request`, in that order. Every request carries `timestamp` and
 * `signature`; Smile ID signs its `job_status` answers the same way.
 */
export function smileIdSignature(partnerId: string, apiKey: string, timestamp: string): string {
  return createHmac('sha256', apiKey)
    .update(timestamp, 'utf8')
    .update(partnerId, 'utf8')
    .update('sid_request', 'utf8')
    .digest('base64');
}

/** True when `signature` is Smile ID's for `timestamp` (compared in constant time). */
export function isSmileIdSignature(partnerId: string, apiKey: string, timestamp: unknown, signature: unknown): boolean {
  if (typeof timestamp !== 'string' || typeof signature !== 'string') return false;
  const expected = Buffer.from(smileIdSignature(partnerId, apiKey, timestamp), 'base64');
  const given = Buffer.from(signature, 'base64');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
