/** The request header naming a start, as Stripe's: a repeat with the same key returns the same flow. */
export const idempotencyKeyHeader = 'idempotency-key';

/**
 * The request header of a browser's owner token: a random value the client keeps (in
 * `localStorage` by default) and sends with every start, so a second tab or a reload starting the
 * same verification joins the live flow instead of sending a second code.
 */
export const ownerHeader = 'verikit-owner';

const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;
const ownerPattern = /^[A-Za-z0-9_-]{22,128}$/;

/**
 * The engine's start options a request carries: its `Idempotency-Key` and its owner token. A value
 * of the wrong form is ignored (the start is then a plain start), never echoed.
 */
export function startOptionsOf(request: Request): { idempotencyKey?: string; owner?: string } {
  const key = request.headers.get(idempotencyKeyHeader)?.trim();
  const owner = request.headers.get(ownerHeader)?.trim();
  return {
    ...(key !== undefined && idempotencyKeyPattern.test(key) ? { idempotencyKey: key } : {}),
    ...(owner !== undefined && ownerPattern.test(owner) ? { owner: `browser:${owner}` } : {}),
  };
}
