import { timingSafeEqual } from 'node:crypto';
import { InvalidInputError, phoneNumberSchemaFor, type Logger } from '@verikit/provider';
import { maskPhoneNumber, type SecretBox } from '../secrets/secrets.js';

/** A number whose phone verification code is fixed: for app-store review and monitoring, never sent to a provider. */
export interface ReviewNumber {
  /** The number: read as every number the engine takes (E.164, or a national form with `defaultCountry`). */
  readonly phoneNumber: string;
  /** Its fixed code: 8 to 10 digits, not a run or a repeat (see docs/abuse.md). */
  readonly code: string;
}

/** The most review numbers an engine takes: a handful for reviewers and probes, never a list of users. */
const maxReviewNumbers = 5;

/** The prefix of the requestId a review number's send records, which no provider's requestId starts with. */
const requestIdPrefix = 'verikit-review~';

/**
 * True for a requestId a review number's send recorded: its check never goes to the provider, even once the
 * number is no longer listed (it then fails).
 */
export function isReviewRequestId(requestId: string): boolean {
  return requestId.startsWith(requestIdPrefix);
}

/** Why a fixed code is weak, or undefined when it is strong enough to stand in production. */
function weakness(code: string): string | undefined {
  if (!/^\d{8,10}$/.test(code)) return 'must be 8 to 10 digits';
  if (new Set(code).size < 4) return 'must use at least 4 different digits';
  const steps = new Set([...code].slice(1).map((digit, index) => (Number(digit) - Number(code[index]) + 10) % 10));
  if (steps.size === 1) return 'must not be a run of digits (12345678, 98765432)';
  const half = code.slice(0, code.length / 2);
  if (code.length % 2 === 0 && code === half + half) return 'must not repeat itself';
  return undefined;
}

/** The review numbers of one engine: off (undefined) unless the app lists some. */
export interface ReviewNumbers {
  /** The requestId to record for a send to `phoneNumber` when it is a review number (nothing is sent), else undefined. */
  requestIdFor(phoneNumber: string): string | undefined;
  /** Checks a code against the fixed one, in constant time; false when the number is no longer listed. */
  check(requestId: string, code: string): boolean;
}

/**
 * Checks the list (an `InvalidInputError` naming the entry: at most {@link maxReviewNumbers}, valid distinct numbers,
 * strong codes) and builds its lookups, keyed by the number's keyed hash so no number is kept in clear beyond the
 * options. A number is read as every number the engine takes is (`+234 803…`, `+2340803…`, a national form with
 * `defaultCountry`), so the one form it is compared in is the E.164 a start's number is parsed to. Logs at warning
 * that review numbers are on, and at each use.
 */
export function createReviewNumbers(
  list: readonly ReviewNumber[] | undefined,
  secrets: SecretBox,
  logger: Logger,
  defaultCountry?: string,
): ReviewNumbers | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.length === 0 || list.length > maxReviewNumbers)
    throw new InvalidInputError([
      { field: 'reviewNumbers', message: `must list 1 to ${maxReviewNumbers} numbers, or be left out` },
    ]);
  const codes = new Map<string, Buffer>();
  const phoneNumberSchema = phoneNumberSchemaFor({ defaultCountry });
  const numbers = list.map((entry, index) => {
    const field = `reviewNumbers.${index}`;
    if (typeof entry !== 'object' || entry === null)
      throw new InvalidInputError([{ field, message: 'must be { phoneNumber, code }' }]);
    const parsed = phoneNumberSchema.safeParse(entry.phoneNumber);
    if (!parsed.success)
      throw new InvalidInputError([
        { field: `${field}.phoneNumber`, message: parsed.error.issues[0]?.message ?? 'is not a valid phone number' },
      ]);
    const problem = typeof entry.code === 'string' ? weakness(entry.code) : 'must be a string of digits';
    if (problem !== undefined) throw new InvalidInputError([{ field: `${field}.code`, message: problem }]);
    const key = secrets.hash('review-number', parsed.data);
    if (codes.has(key)) throw new InvalidInputError([{ field: `${field}.phoneNumber`, message: 'is listed twice' }]);
    codes.set(key, Buffer.from(secrets.hash('review-code', entry.code)));
    return parsed.data;
  });
  logger.warn('verikit.review_numbers.enabled', {
    count: codes.size,
    numbers: numbers.map((phoneNumber) => maskPhoneNumber(phoneNumber)),
  });
  return {
    requestIdFor(phoneNumber) {
      const key = secrets.hash('review-number', phoneNumber);
      return codes.has(key) ? requestIdPrefix + key : undefined;
    },
    check(requestId, code) {
      const expected = codes.get(requestId.slice(requestIdPrefix.length));
      if (!requestId.startsWith(requestIdPrefix) || expected === undefined) return false;
      const given = Buffer.from(secrets.hash('review-code', code));
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
