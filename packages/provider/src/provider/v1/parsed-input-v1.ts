import type { z } from 'zod';
import { parseInput } from '../../schemas.js';

/** Inputs that passed the spec's schema, frozen when they were marked, so they cannot change after the parse. */
const parsedInputs = new WeakSet<object>();

/**
 * Marks an input of a provider call as already parsed by the spec's schema of that call (`phoneSendInputSchemaV1`
 * for `phone.send`, …), and freezes it. The engine marks what it passes, since it parsed the user's input at its
 * edge; a provider given a marked input takes it as it is ({@link parseProviderInputV1}), so the engine's path
 * parses each input once. Mark only an input built from values a spec schema (or a stricter one) accepted.
 */
export function markParsedV1<T extends object>(input: T): Readonly<T> {
  parsedInputs.add(Object.freeze(input));
  return input;
}

/** True when `input` was marked by {@link markParsedV1}: a wrapper that derives a new input marks it again. */
export function isParsedV1(input: unknown): boolean {
  return typeof input === 'object' && input !== null && parsedInputs.has(input);
}

/**
 * The input of a provider call, parsed by the spec's `schema` unless it was marked as parsed already: a provider
 * called directly (`provider.sms.send(…)`, no engine) refuses bad input with an `InvalidInputError` naming the
 * field, and one called by the engine does not parse again (docs/decisions/1520-provider-input-parsed-once.md).
 */
export function parseProviderInputV1<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  if (isParsedV1(input)) return input as z.output<T>;
  return parseInput(schema, input);
}
