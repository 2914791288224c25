import { parseInput } from '@verikit/provider';
import type { z } from 'zod';
import type { ParsedStartInput } from '../inputs/inputs.js';

/**
 * Parses each start input once. `parse` checks and canonicalises an input (numbers read into E.164) and returns it
 * frozen; `of` takes an input this parser returned as it is, and parses any other. The HTTP layer parses a start to
 * show it to `authorize` (`verikit.parseStartInput`) and hands the same object to `verikit.start`, which then reads
 * no number again. Frozen, so nothing between the two can change what was checked; known by identity, so no other
 * object passes for parsed.
 */
export class StartInputs {
  readonly #schema: z.ZodType<ParsedStartInput, unknown>;
  readonly #parsed = new WeakSet<object>();

  constructor(schema: z.ZodType<ParsedStartInput, unknown>) {
    this.#schema = schema;
  }

  /** The input checked and canonicalised, frozen; an `InvalidInputError` naming each problem otherwise. */
  parse(input: unknown): ParsedStartInput {
    const parsed = parseInput(this.#schema, input);
    for (const value of Object.values(parsed)) if (typeof value === 'object' && value !== null) Object.freeze(value);
    Object.freeze(parsed);
    this.#parsed.add(parsed);
    return parsed;
  }

  /** `input` itself when `parse` returned it; otherwise `parse(input)`. */
  of(input: unknown): ParsedStartInput {
    return typeof input === 'object' && input !== null && this.#parsed.has(input)
      ? (input as ParsedStartInput)
      : this.parse(input);
  }
}
