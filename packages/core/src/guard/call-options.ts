import { z } from 'zod';
import { InvalidInputError, parseInput } from '@verikit/provider';

/** The second argument of `verikit.start` and `verikit.send`: who the call is made for. */
export interface CallOptions {
  /**
   * The client the send guard counts this call against (an address, an account id): 1 to 512
   * characters, only ever stored as a keyed hash. Absent: the per-client limit does not apply.
   */
  client?: string | undefined;
}

const callOptionsSchema = z.object({
  client: z
    .string({ error: 'must be a string of 1 to 512 characters' })
    .min(1, { error: 'must not be empty' })
    .max(512, { error: 'must be at most 512 characters' })
    .optional(),
});

/** Checks the call options (an `InvalidInputError` naming `client`) and returns the client key. */
export function clientOf(options: unknown): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidInputError([{ field: 'options', message: 'must be an object such as { client }' }]);
  }
  const unknown = Object.keys(options).filter((key) => key !== 'client');
  if (unknown.length > 0) {
    throw new InvalidInputError([
      { field: 'options', message: `has unknown field(s): ${unknown.map((key) => key.slice(0, 40)).join(', ')}` },
    ]);
  }
  return parseInput(callOptionsSchema, options).client;
}
