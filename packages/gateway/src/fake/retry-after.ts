/** The longest wait a receiver's `Retry-After` imposes unless configured (`webhookMaxRetryAfterMs`). */
export const defaultMaxRetryAfterMs = 60_000;

/**
 * The wait a `Retry-After` header asks for, in ms: delay-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2031 07:28:00 GMT`, counted from `now`; a date in the past asks for no wait).
 * Undefined when the header is absent or unreadable: the sender's own schedule applies.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  const value = header?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d{1,10}$/.test(value)) return Number(value) * 1000;
  // Only the date forms HTTP allows start with a letter (IMF-fixdate, RFC 850, asctime).
  if (!/^[A-Za-z]/.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before the next attempt: the schedule's delay, or longer when the receiver asked for
 * more with `Retry-After`, but never more than `maxRetryAfterMs` on the receiver's word alone.
 */
export function nextRetryDelayMs(scheduledMs: number, retryAfter: number | undefined, maxRetryAfterMs: number): number {
  return retryAfter === undefined ? scheduledMs : Math.max(scheduledMs, Math.min(retryAfter, maxRetryAfterMs));
}
