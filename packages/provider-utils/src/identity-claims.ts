import {
  InvalidInputError,
  maxSelfieBytes,
  type IdentityClaimField,
  type IdentityClaimsV1,
  type IdentityType,
} from '@verikit/provider';

// What the identity vendors' providers share (`@verikit/smile-id`, `@verikit/dojah`): the step input read and checked
// the same way, and the comparison of what the user claims with a record a vendor answered with. A record never
// leaves the provider: only one boolean per claim does (docs/security.md, "Identity data").

/** A step's identity number and claims, checked. */
export interface IdentityStepInput {
  /** `bvn` or `nin`. */
  readonly idType: IdentityType;
  /** 11 digits, or a 16-character virtual NIN. */
  readonly number: string;
  /** The claims (empty for a face step). */
  readonly claims: IdentityClaimsV1;
}

/** The identity number and claims of a step's input, checked: a malformed one is an `InvalidInputError` on the field. */
export function readIdentityStepInput(input: unknown): IdentityStepInput {
  const given = (input ?? {}) as Record<string, unknown>;
  if (given.idType !== 'bvn' && given.idType !== 'nin')
    throw new InvalidInputError([{ field: 'idType', message: 'must be bvn or nin' }]);
  if (typeof given.number !== 'string' || !/^(\d{11}|[A-Z0-9]{16})$/.test(given.number))
    throw new InvalidInputError([{ field: 'number', message: 'must be 11 digits, or a 16-character virtual NIN' }]);
  const claims = (typeof given.claims === 'object' && given.claims !== null ? given.claims : {}) as IdentityClaimsV1;
  return { idType: given.idType, number: given.number, claims };
}

/** The selfie of a face step's input: bytes, at most `maxSelfieBytes` (2 MiB), else an `InvalidInputError` on `image`. */
export function readSelfie(input: unknown): Uint8Array {
  const image = (input as { image?: unknown } | undefined)?.image;
  if (!(image instanceof Uint8Array) || image.byteLength === 0 || image.byteLength > maxSelfieBytes)
    throw new InvalidInputError([{ field: 'image', message: 'must be the selfie bytes, at most 2 MiB' }]);
  return image;
}

/** True for a NIMC virtual NIN (16 letters and digits, not all digits), false for an 11-digit number. */
export function isVirtualNin(number: string): boolean {
  return /^[A-Z0-9]{16}$/.test(number) && !/^\d+$/.test(number);
}

/** Letters only, lower case, accents off: `Ọlá-Adé` and `OLA ADE` compare equal. */
function letters(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}]+/gu, ' ')
    .trim();
}

/** The words of a name as the register writes it. */
function words(text: unknown): string[] {
  return typeof text === 'string' ? letters(text).split(' ').filter(Boolean) : [];
}

const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * A record's date of birth as `YYYY-MM-DD`. Registers write it `1991-04-23`, `23-04-1991`, `23/04/1991`,
 * `23-April-1991` or `23-Apr-1991`; anything else (a two-digit year) is undefined, and a claim against it is false.
 */
function isoDate(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const dayFirst = /^(\d{2})[-/](\d{2})[-/](\d{4})$/.exec(text);
  if (dayFirst) return `${dayFirst[3]}-${dayFirst[2]}-${dayFirst[1]}`;
  const named = /^(\d{1,2})[- ]([A-Za-z]{3,9})[- ](\d{4})$/.exec(text);
  const month = named ? months.indexOf(named[2]!.slice(0, 3).toLowerCase()) : -1;
  return named && month >= 0
    ? `${named[3]}-${String(month + 1).padStart(2, '0')}-${named[1]!.padStart(2, '0')}`
    : undefined;
}

/** The last 10 digits of a phone number: `+2348031234567`, `08031234567` and `2348031234567` agree. */
function phoneTail(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const digits = text.replace(/\D/g, '');
  return digits.length >= 10 ? digits.slice(-10) : undefined;
}

/** The parts of a record a match reads, whatever the vendor calls its fields. */
export interface IdentityRecordParts {
  /** Every name field of the record (full, first, middle, last, other): a claimed name's words must all be among them. */
  readonly names: readonly unknown[];
  /** The date of birth as the register writes it. */
  readonly dateOfBirth?: unknown;
  /** Every phone number on the record. */
  readonly phones: readonly unknown[];
}

/** One boolean per claim made: true when the record agrees. The record's values never leave this function. */
export function compareClaims(
  claims: IdentityClaimsV1,
  record: IdentityRecordParts,
): Partial<Record<IdentityClaimField, boolean>> {
  const names = new Set(record.names.flatMap(words));
  const nameAgrees = (claimed: string) => {
    const wanted = words(claimed);
    return wanted.length > 0 && wanted.every((word) => names.has(word));
  };
  const fields: Partial<Record<IdentityClaimField, boolean>> = {};
  if (claims.firstName !== undefined) fields.firstName = nameAgrees(claims.firstName);
  if (claims.lastName !== undefined) fields.lastName = nameAgrees(claims.lastName);
  if (claims.dateOfBirth !== undefined) fields.dateOfBirth = isoDate(record.dateOfBirth) === claims.dateOfBirth;
  if (claims.phoneNumber !== undefined) {
    const tail = phoneTail(claims.phoneNumber);
    fields.phoneNumber = tail !== undefined && record.phones.some((phone) => phoneTail(phone) === tail);
  }
  return fields;
}
