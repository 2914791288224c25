import { phoneNumberReader } from '@verikit/provider';
import { planNumberProblem, type InputSchemas, type ParsedStartInput } from '../inputs.js';

/** A phone start's fields after its kind and number, in the order the schema's output has them. */
const optionalFields = ['channel', 'channels', 'locale', 'from', 'escalateAfterMs'] as const;
/** Every field a phone start may have. */
const phoneFields: ReadonlySet<string> = new Set(['kind', 'phoneNumber', ...optionalFields]);

/** A phone start as the schema returns it. */
type ParsedPhoneStart = Extract<ParsedStartInput, { kind: 'phone' }>;

/**
 * The phone start checked by hand: a start's own path without zod's walk over the union (its schema stays the one
 * definition of what a start is; docs/decisions/1960-a-phone-start-checked-by-hand-then-by-zod.md). Given a plain
 * object (`{}` or an object literal) with `kind: 'phone'` and only a phone start's fields, it reads the number once
 * (for any use, then for each channel of the plan, as the schema does), checks each other field given with that
 * field's own schema, and returns the object the schema would return: the same fields, values and order. Any input
 * it does not take, or that fails a check, is undefined: the caller then parses it with the schema, so every
 * refusal, message and issue is zod's. `phone-start-by-hand.test.ts` holds the two to the same outputs.
 */
export function phoneStartByHand(
  defaultCountry: string | undefined,
  schema: InputSchemas['phoneStart'],
): (input: unknown) => ParsedPhoneStart | undefined {
  const { shape } = schema;
  const anyUse = { defaultCountry, use: 'any' } as const;
  return (input) => {
    if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype)
      return undefined;
    const given = input as Record<string, unknown>;
    if (given.kind !== 'phone') return undefined;
    for (const key in given) if (!phoneFields.has(key)) return undefined;
    // One reader for this start: the number is parsed once for all its readings, and held by nothing after.
    const read = phoneNumberReader();
    const number = read(given.phoneNumber, anyUse);
    if (!number.ok) return undefined;
    const parsed: Record<string, unknown> = { kind: 'phone', phoneNumber: number.e164 };
    for (const field of optionalFields) {
      if (!Object.hasOwn(given, field)) continue;
      const value = given[field];
      if (value === undefined) {
        parsed[field] = undefined;
        continue;
      }
      const checked = shape[field].safeParse(value);
      if (!checked.success) return undefined;
      parsed[field] = checked.data;
    }
    const start = parsed as ParsedPhoneStart;
    return planNumberProblem(start, read) === undefined ? start : undefined;
  };
}
