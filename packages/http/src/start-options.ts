import { InvalidInputError } from '@verikit/core';
import type { RouteRequest } from './routes/route-request.js';

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

/** The answer header of a replayed call, as Stripe's: the same key was seen, nothing was sent again. */
export const idempotentReplayedHeader = 'idempotent-replayed';

/** `Idempotent-Replayed: true` for an answer the engine replayed (`isReplayed`), else nothing. */
export function replayedHeaders(replayed: boolean): Readonly<Record<string, string>> {
  return replayed ? { [idempotentReplayedHeader]: 'true' } : {};
}

/** A request's `Idempotency-Key`, checked (`invalid_input` naming the header), or undefined. */
export function idempotencyKeyOf(request: RouteRequest): string | undefined {
  const key = request.header(idempotencyKeyHeader)?.trim();
  if (key === undefined || idempotencyKeyPattern.test(key)) return key;
  throw new InvalidInputError([{ field: idempotencyKeyHeader, message: 'must be 1 to 255 visible ASCII characters' }]);
}

/**
 * The engine's start options a request carries: its `Idempotency-Key` and its owner token. A value
 * of the wrong form is refused (`invalid_input` naming the header), never echoed.
 */
export function startOptionsOf(request: RouteRequest): { idempotencyKey?: string; owner?: string } {
  const key = request.header(idempotencyKeyHeader)?.trim();
  const owner = request.header(ownerHeader)?.trim();
  const issues = [
    ...(key === undefined || idempotencyKeyPattern.test(key)
      ? []
      : [{ field: idempotencyKeyHeader, message: 'must be 1 to 255 visible ASCII characters' }]),
    ...(owner === undefined || ownerPattern.test(owner)
      ? []
      : [{ field: ownerHeader, message: 'must be 22 to 128 characters of A-Z, a-z, 0-9, _ and -' }]),
  ];
  if (issues.length > 0) throw new InvalidInputError(issues);
  return {
    ...(key === undefined ? {} : { idempotencyKey: key }),
    ...(owner === undefined ? {} : { owner: `browser:${owner}` }),
  };
}
