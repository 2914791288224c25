import { z } from 'zod';
import { InvalidInputError, parseInput } from '@verikit/provider';
import { onFirstUse } from '../inputs/inputs.js';

/** The second argument of `verikit.sendSms` and `verikit.sendWhatsApp`. */
export interface MessageOptions {
  /**
   * A key naming this send, as Stripe's `Idempotency-Key`: a repeat with the same key and the same parameters, from
   * any instance sharing the store, within `policies.retentionMs` (a day by default), sends nothing and resolves with
   * the first call's answer (`isReplayed(answer)` is true); the same key with other parameters is an
   * `IdempotencyKeyReusedError`. 1 to 255 characters, only ever stored as a keyed hash.
   */
  idempotencyKey?: string | undefined;
}

const messageOptionsSchema = onFirstUse(() =>
  z
    .object({
      idempotencyKey: z
        .string({ error: 'must be a string of 1 to 255 characters' })
        .min(1, { error: 'must not be empty' })
        .max(255, { error: 'must be at most 255 characters' })
        .optional(),
    })
    .strict(),
);

/** Checks a message call's options (an `InvalidInputError` naming the field). */
export function messageOptionsOf(options: unknown): MessageOptions {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new InvalidInputError([{ field: 'options', message: 'must be an object such as { idempotencyKey }' }]);
  return parseInput(messageOptionsSchema(), options, 'options');
}
