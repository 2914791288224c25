import type { CountryCode, NumberType, PhoneNumber } from 'libphonenumber-js/max';
import { createRequire } from 'node:module';

/** libphonenumber-js with its full metadata: the API of `libphonenumber-js/max`. */
export type PhoneNumberLibrary = typeof import('libphonenumber-js/max');

let library: PhoneNumberLibrary | undefined;

/**
 * `libphonenumber-js/max` (full metadata: number ranges and types, not only lengths), loaded on the first call
 * rather than when this package is imported: its 93 ES modules were a third of the time `import '@verikit/core'`
 * took, and a process that never reads a number (a worker, a CLI command) need not pay for them. Loaded through
 * `require`, synchronously, so every reader of a number stays synchronous (decision 1220).
 */
export function phoneNumberLibrary(): PhoneNumberLibrary {
  library ??= createRequire(import.meta.url)('libphonenumber-js/max') as PhoneNumberLibrary;
  return library;
}

/**
 * Who a number must be able to reach it: `sms` and `ussd` need a mobile; `whatsapp` a mobile or a VoIP
 * number; `voice` anything that takes a call; `any` any valid number (webhooks, proofs, sender ids).
 */
export type PhoneNumberUse = 'sms' | 'voice' | 'whatsapp' | 'ussd' | 'any';

/** How {@link readPhoneNumber} reads a number as typed. */
export interface PhoneNumberRules {
  /**
   * ISO 3166-1 alpha-2 (`NG`): the country of a number typed in its national form (`0801 234 5678`). Absent:
   * a number must start with `+` or `00` and its country code.
   */
  readonly defaultCountry?: string | undefined;
  /** What the number is for; decides which kinds of number are accepted. Default `any`. */
  readonly use?: PhoneNumberUse;
}

/** What is wrong with a number, each with a message id a UI translates (`verikit.error.phone_number.<problem>`). */
export type PhoneNumberProblem =
  | 'not_a_string'
  | 'empty'
  | 'bad_characters'
  | 'needs_country_code'
  | 'unknown_country_code'
  | 'too_short'
  | 'too_long'
  | 'invalid'
  | 'not_mobile'
  | 'cannot_receive_calls';

/** The developer-English message of each problem, written for the person who typed the number too. */
const problemMessages: Readonly<Record<PhoneNumberProblem, string>> = Object.freeze({
  not_a_string: 'must be a string',
  empty: 'is required',
  bad_characters: 'must contain only digits, spaces, dashes, dots or brackets, after an optional +',
  needs_country_code: 'must start with + and the country code',
  unknown_country_code: 'has an unknown country code',
  too_short: 'is too short',
  too_long: 'is too long',
  invalid: 'is not a valid number for its country',
  not_mobile: 'is not a mobile number',
  cannot_receive_calls: 'cannot receive calls',
});

/** The message id of a problem: the key a UI translates (docs/ui.md). */
export function phoneNumberMessageId(problem: PhoneNumberProblem): string {
  return `verikit.error.phone_number.${problem}`;
}

/** Every message id a phone number's problem can carry, for a UI's catalogue. */
export const phoneNumberMessageIds: readonly string[] = Object.freeze(
  (Object.keys(problemMessages) as PhoneNumberProblem[]).map(phoneNumberMessageId),
);

/** The kinds of number each use accepts (libphonenumber-js's types, read from its full metadata). */
const acceptedTypes: Readonly<Record<Exclude<PhoneNumberUse, 'any'>, ReadonlySet<NumberType>>> = Object.freeze({
  sms: new Set<NumberType>(['MOBILE', 'FIXED_LINE_OR_MOBILE', 'PERSONAL_NUMBER']),
  ussd: new Set<NumberType>(['MOBILE', 'FIXED_LINE_OR_MOBILE']),
  whatsapp: new Set<NumberType>(['MOBILE', 'FIXED_LINE_OR_MOBILE', 'PERSONAL_NUMBER', 'VOIP']),
  voice: new Set<NumberType>(['MOBILE', 'FIXED_LINE', 'FIXED_LINE_OR_MOBILE', 'PERSONAL_NUMBER', 'VOIP']),
});

/** The outcome of {@link readPhoneNumber}: the number in E.164, or what is wrong with it. */
export type PhoneNumberReading =
  | {
      /** The number was read. */
      readonly ok: true;
      /** E.164: `+`, the country code and the national significant number (no trunk `0`). */
      readonly e164: string;
      /** ISO 3166-1 alpha-2, or undefined for numbers of no country (`+800`). */
      readonly country: string | undefined;
    }
  | {
      /** The number was refused. */
      readonly ok: false;
      /** What is wrong with it. */
      readonly problem: PhoneNumberProblem;
      /** Developer English that also reads to a person ("is too short"); never echoes the number. */
      readonly message: string;
      /** `verikit.error.phone_number.<problem>`. */
      readonly messageId: string;
    };

/** Longest text read as a number: E.164 has at most 15 digits; the rest is room for formatting. */
const maxTextLength = 40;
/** What a person may type around the digits: spaces (also non-breaking), dashes, dots, slashes, brackets. */
const formatting = /[\s\u00a0\-./()]/g;

function problem(kind: PhoneNumberProblem): PhoneNumberReading {
  return { ok: false, problem: kind, message: problemMessages[kind], messageId: phoneNumberMessageId(kind) };
}

/** What one parse of a number told: its E.164, country, type (full metadata) and validity. */
interface ParsedFacts {
  /** The text parsed, and the default country when it was in national form. */
  readonly key: string;
  readonly e164: string;
  readonly country: string | undefined;
  readonly type: NumberType | undefined;
  readonly valid: boolean;
}

/**
 * Reads a phone number as a person types it and returns it in E.164, the one form every limit, route,
 * proof and provider call uses: `+234 801 234 5678`, `+234 (0) 801-234-5678`, `00234 801 234 5678`,
 * `+23408012345678` (a trunk `0` after the country code) and, with `defaultCountry: 'NG'`,
 * `0801 234 5678` all give `+2348012345678`. The number must be valid for its country by
 * libphonenumber-js's full metadata (number ranges, not only lengths) and of a kind `use` can reach.
 */
export function readPhoneNumber(value: unknown, rules: PhoneNumberRules = {}): PhoneNumberReading {
  return read(value, rules, undefined);
}

/** What a {@link phoneNumberReader} keeps between its readings: the facts of the last text it parsed. */
interface ReaderMemory {
  last: ParsedFacts | undefined;
}

/** A reader of phone numbers: {@link readPhoneNumber}'s answers, each text parsed once while the reader lives. */
export type PhoneNumberReader = (value: unknown, rules?: PhoneNumberRules) => PhoneNumberReading;

/**
 * A reader for one call, answering as {@link readPhoneNumber} does. It keeps what the library told of the last text
 * it parsed, so the same text read again asks the library nothing: a phone start reads its number for any use, then
 * for each channel of its plan, and a number typed in E.164 is parsed once. Only what the library returned for the
 * same text and default country is reused, so every reading is as without it. Make one per call and drop it with
 * the call: a number is then held no longer than the call that read it, and by nothing another call or engine
 * reaches (docs/decisions/1920-no-cache-of-numbers-across-starts.md).
 */
export function phoneNumberReader(): PhoneNumberReader {
  const memory: ReaderMemory = { last: undefined };
  return (value, rules = {}) => read(value, rules, memory);
}

function read(value: unknown, rules: PhoneNumberRules, memory: ReaderMemory | undefined): PhoneNumberReading {
  if (typeof value !== 'string') return problem('not_a_string');
  if (value.length > maxTextLength) return problem('too_long');
  const typed = value.trim().replace(formatting, '');
  if (typed.length === 0) return problem('empty');
  if (!/^\+?\d+$/.test(typed)) return problem('bad_characters');
  const { isSupportedCountry, parsePhoneNumberWithError, validatePhoneNumberLength } = phoneNumberLibrary();
  const international = typed.startsWith('+') ? typed : typed.startsWith('00') ? `+${typed.slice(2)}` : undefined;
  const country =
    rules.defaultCountry !== undefined && isSupportedCountry(rules.defaultCountry)
      ? (rules.defaultCountry as CountryCode)
      : undefined;
  if (international === undefined && country === undefined) return problem('needs_country_code');
  // E.164 holds at most 15 digits after the +.
  if (international !== undefined && international.length > 16) return problem('too_long');
  const text = international ?? typed;
  const options = international === undefined ? { defaultCountry: country! } : {};
  const key = international ?? `${country!}:${typed}`;
  let facts: ParsedFacts;
  const last = memory?.last;
  if (last?.key === key) facts = last;
  else {
    let parsed: PhoneNumber;
    try {
      parsed = parsePhoneNumberWithError(text, options);
    } catch (error) {
      const reason = error instanceof Error ? error.message : '';
      if (reason === 'INVALID_COUNTRY') return problem('unknown_country_code');
      if (reason === 'TOO_SHORT') return problem('too_short');
      if (reason === 'TOO_LONG') return problem('too_long');
      return problem('invalid');
    }
    // With the full metadata a number is valid exactly when it has a type (libphonenumber-js's isValid asks
    // getNumberType): the type is asked once, and isValid only when there is none.
    const type = parsed.getType();
    facts = { key, e164: parsed.number, country: parsed.country, type, valid: type !== undefined || parsed.isValid() };
    if (memory !== undefined) memory.last = facts;
  }
  const use = rules.use ?? 'any';
  if (!facts.valid) {
    const length = validatePhoneNumberLength(text, options);
    if (length === 'TOO_SHORT') return problem('too_short');
    if (length === 'TOO_LONG') return problem('too_long');
    if (length === 'INVALID_COUNTRY') return problem('unknown_country_code');
    return problem('invalid');
  }
  if (use !== 'any') {
    const { type } = facts;
    if (type === undefined || !acceptedTypes[use].has(type))
      return problem(use === 'voice' ? 'cannot_receive_calls' : 'not_mobile');
  }
  return { ok: true, e164: facts.e164, country: facts.country };
}
