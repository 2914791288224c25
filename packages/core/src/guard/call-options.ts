import { z } from 'zod';
import { InvalidInputError, parseInput } from '@verikit/provider';
import { onFirstUse } from '../inputs/inputs.js';

/** The second argument of `verikit.start` and `verikit.send`: who the call is made for. */
export interface CallOptions {
  /**
   * The client the send guard counts this call against (an address, an account id): 1 to 512
   * characters, only ever stored as a keyed hash. Absent: the per-client limit does not apply.
   */
  client?: string | undefined;
  /**
   * A key naming this call, as Stripe's `Idempotency-Key`, for `start` and for `send`'s `resend` and `restart`. A
   * repeat with the same key (for a start, and the same `owner`) and the same parameters within
   * `policies.retentionMs` (a day by default) returns the same flow and sends nothing (`isReplayed(view)` is
   * true); the same key with other parameters is an `IdempotencyKeyReusedError` naming them (decision 1660).
   * 1 to 255 characters, only ever stored as a keyed hash.
   */
  idempotencyKey?: string | undefined;
  /**
   * `start` only: who the flow belongs to, as the application knows it (a session id, an account id,
   * a browser's owner token). A start for a number with a live flow of the same kind and the same
   * owner resumes that flow and sends nothing. 1 to 512 characters, only ever stored as a keyed hash.
   * Absent: every start is a new flow (unless `idempotencyKey` repeats).
   */
  owner?: string | undefined;
}

/** The call options, checked. */
export interface CheckedCallOptions {
  readonly client: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly owner: string | undefined;
}

const text = (max: number) =>
  z
    .string({ error: `must be a string of 1 to ${max} characters` })
    .min(1, { error: 'must not be empty' })
    .max(max, { error: `must be at most ${max} characters` })
    .optional();

const callOptionsSchema = onFirstUse(() =>
  z.object({ client: text(512), idempotencyKey: text(255), owner: text(512) }),
);
const knownFields = new Set(['client', 'idempotencyKey', 'owner']);

/** Checks the call options (an `InvalidInputError` naming the field). */
export function callOptionsOf(options: unknown): CheckedCallOptions {
  if (options === undefined) return { client: undefined, idempotencyKey: undefined, owner: undefined };
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidInputError([{ field: 'options', message: 'must be an object such as { client }' }]);
  }
  const unknown = Object.keys(options).filter((key) => !knownFields.has(key));
  if (unknown.length > 0) {
    throw new InvalidInputError([
      { field: 'options', message: `has unknown field(s): ${unknown.map((key) => key.slice(0, 40)).join(', ')}` },
    ]);
  }
  const { client, idempotencyKey, owner } = parseInput(callOptionsSchema(), options);
  return { client, idempotencyKey, owner };
}
