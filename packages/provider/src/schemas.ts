import { z } from 'zod';
import { InvalidInputError, type InputIssue } from './errors/invalid-input-error.js';
import { readPhoneNumber, type PhoneNumberRules } from './phone-number.js';

const phoneNumberSchemas = new Map<string, z.ZodType<string, string>>();

/**
 * A phone number as a person types it, parsed into E.164 (see {@link readPhoneNumber}): the schema's
 * output is the canonical number, so everything after the parse (limits, routes, proofs, provider calls)
 * sees one form per handset. An issue carries the problem's message id (`verikit.error.phone_number.too_short`)
 * for a UI to translate. Schemas are cached per rules.
 */
export function phoneNumberSchemaFor(rules: PhoneNumberRules = {}): z.ZodType<string, string> {
  const key = `${rules.defaultCountry ?? ''}:${rules.use ?? 'any'}`;
  let schema = phoneNumberSchemas.get(key);
  if (schema === undefined) {
    const fixed: PhoneNumberRules = { ...rules };
    schema = z.string({ error: 'must be a string' }).transform((value, context) => {
      const reading = readPhoneNumber(value, fixed);
      if (reading.ok) return reading.e164;
      context.addIssue({ code: 'custom', message: reading.message, params: { messageId: reading.messageId } });
      return z.NEVER;
    });
    phoneNumberSchemas.set(key, schema);
  }
  return schema;
}

/**
 * A phone number in international form (`+` or `00`, the country code, the number; spaces, dashes, dots
 * and brackets allowed), valid for its country, output in E.164. National forms need a default country:
 * {@link phoneNumberSchemaFor}.
 */
export const phoneNumberSchema: z.ZodType<string, string> = phoneNumberSchemaFor();

/**
 * A virtual NIN (vNIN): the 16-character token NIMC issues for a NIN, made of capital letters and digits, which
 * third parties are required to take instead of the NIN itself.
 */
const virtualNinPattern = /^[A-Z0-9]{16}$/;

/** True when `number` has the shape of a 16-character virtual NIN rather than an 11-digit BVN or NIN. */
export function isVirtualNin(number: string): boolean {
  return virtualNinPattern.test(number);
}

/**
 * An identity number: 11 digits (BVN, or NIN by default), or a 16-character virtual NIN (capital letters and
 * digits), which only a NIN flow on a provider that declares `identity.virtualNin` takes.
 */
export const identityNumberSchema = z
  .string({ error: 'must be a string of 11 digits' })
  .max(64, { error: 'must be 11 digits, or a 16-character virtual NIN', abort: true })
  .refine((value) => /^\d{11}$/.test(value) || virtualNinPattern.test(value), {
    error: 'must be exactly 11 digits, or a virtual NIN of 16 capital letters and digits',
  });

/** A verification code as a user types it: 4 to 10 digits. */
export const codeSchema = z
  .string({ error: 'must be a string of digits' })
  .max(64, { error: 'must be 4 to 10 digits', abort: true })
  .regex(/^\d{4,10}$/, { error: 'must be 4 to 10 digits' });

/** A sender id: up to 11 letters, digits or spaces (alphanumeric sender), or an E.164 number. */
export const senderSchema = z
  .string({ error: 'must be a string' })
  .max(16, { error: 'must be at most 11 characters, or an E.164 number', abort: true })
  .regex(/^(?:[A-Za-z0-9][A-Za-z0-9 ]{0,10}|\+\d{7,15})$/, {
    error: 'must be 1 to 11 letters, digits or spaces, or an E.164 number',
  });

/** An SMS body: 1 to 1,600 characters (ten concatenated segments). */
export const smsMessageSchema = z
  .string({ error: 'must be a string' })
  .max(1600, { error: 'must be at most 1600 characters', abort: true })
  .refine((value) => value.trim().length > 0, { error: 'must not be empty' });

/** A WhatsApp message body: 1 to 4,096 characters. */
export const whatsAppMessageSchema = z
  .string({ error: 'must be a string' })
  .max(4096, { error: 'must be at most 4096 characters', abort: true })
  .refine((value) => value.trim().length > 0, { error: 'must not be empty' });

/** A flow id as verikit issues them: 22 to 64 URL-safe characters. */
export const flowIdSchema = z
  .string({ error: 'must be a string' })
  .max(64, { error: 'is not a flow id', abort: true })
  .regex(/^[A-Za-z0-9_-]{22,64}$/, { error: 'is not a flow id' });

/** A BCP 47 language tag as a provider takes it: `en`, `fr`, `pt-BR`, `zh-Hant`. */
export const localeSchema = z
  .string({ error: 'must be a string' })
  .max(35, { error: 'must be a language tag such as en, fr or pt-BR', abort: true })
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/, { error: 'must be a language tag such as en, fr or pt-BR' });

/** A provider's requestId, as a phone send returned it: 1 to 256 characters. */
export const requestIdSchema = z
  .string({ error: 'must be a string' })
  .min(1, { error: 'must not be empty' })
  .max(256, { error: 'must be at most 256 characters' });

/**
 * Whether `path` leads to a value in `input`. zod 4 leaves `issue.input` out of its issues (unless asked,
 * and then it would carry the value, which may be a code), so "missing" is read from the input itself.
 */
function isPresent(input: unknown, path: readonly PropertyKey[]): boolean {
  let current = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || typeof key === 'symbol' || !Object.hasOwn(current, key))
      return false;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current !== undefined;
}

function issuesOf(error: z.ZodError, input: unknown, prefix?: string): InputIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const field = [prefix, path].filter(Boolean).join('.') || 'input';
    let message = issue.message;
    if (issue.code === 'unrecognized_keys')
      message = `has unknown field(s): ${issue.keys.map((key) => key.slice(0, 40)).join(', ')}`;
    if (issue.code === 'invalid_type') {
      // A missing field is required; a field of the wrong type keeps the schema's own words ("must be a
      // string"), or says the type zod expected where the schema gave none.
      // A schema's own "is required: …" (one that says what to give) stands.
      if (!isPresent(input, issue.path)) message = message.startsWith('is required') ? message : 'is required';
      else if (message.startsWith('Invalid input')) message = `must be ${typeWords(issue.expected)}`;
    }
    const messageId = (issue as { params?: { messageId?: unknown } }).params?.messageId;
    return typeof messageId === 'string' ? { field, message, messageId } : { field, message };
  });
}

/** "a string", "an object", "a list": the expected type of an `invalid_type` issue in words. */
function typeWords(expected: string): string {
  if (expected === 'array') return 'a list';
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/**
 * Parses `input` with `schema`, or throws an {@link InvalidInputError} naming the field. The
 * value itself is never put in the error.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, prefix?: string): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new InvalidInputError(issuesOf(result.error, input, prefix));
}

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
