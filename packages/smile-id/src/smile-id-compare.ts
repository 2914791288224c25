import type { IdentityClaimField, IdentityClaimsV1 } from '@verikit/provider';

// Enhanced KYC answers with the record itself (FullName, DOB, PhoneNumber). verikit never lets it out: the claims are
// compared here, and only a boolean per claim leaves the provider (docs/security.md, "Identity data").

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
function words(text: unknown): Set<string> {
  return new Set(typeof text === 'string' ? letters(text).split(' ').filter(Boolean) : []);
}

/** A record's date of birth as `YYYY-MM-DD`: it comes as `1991-04-23`, `23-04-1991` or `23/04/1991`. */
function isoDate(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const dayFirst = /^(\d{2})[-/](\d{2})[-/](\d{4})$/.exec(text);
  return dayFirst ? `${dayFirst[3]}-${dayFirst[2]}-${dayFirst[1]}` : undefined;
}

/** The last 10 digits of a phone number: `+2348031234567`, `08031234567` and `2348031234567` agree. */
function phoneTail(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const digits = text.replace(/\D/g, '');
  return digits.length >= 10 ? digits.slice(-10) : undefined;
}

/** The record's fields Smile ID names, read from an Enhanced KYC answer. */
export interface SmileIdRecord {
  readonly FullName?: unknown;
  readonly FirstName?: unknown;
  readonly LastName?: unknown;
  readonly OtherName?: unknown;
  readonly DOB?: unknown;
  readonly PhoneNumber?: unknown;
  readonly PhoneNumber2?: unknown;
}

/** One boolean per claim made: true when the record agrees. */
export function compareClaims(
  claims: IdentityClaimsV1,
  record: SmileIdRecord,
): Partial<Record<IdentityClaimField, boolean>> {
  const names = new Set([
    ...words(record.FullName),
    ...words(record.FirstName),
    ...words(record.LastName),
    ...words(record.OtherName),
  ]);
  const nameAgrees = (claimed: string) => {
    const wanted = letters(claimed).split(' ').filter(Boolean);
    return wanted.length > 0 && wanted.every((word) => names.has(word));
  };
  const fields: Partial<Record<IdentityClaimField, boolean>> = {};
  if (claims.firstName !== undefined) fields.firstName = nameAgrees(claims.firstName);
  if (claims.lastName !== undefined) fields.lastName = nameAgrees(claims.lastName);
  if (claims.dateOfBirth !== undefined) fields.dateOfBirth = isoDate(record.DOB) === claims.dateOfBirth;
  if (claims.phoneNumber !== undefined) {
    const tail = phoneTail(claims.phoneNumber);
    fields.phoneNumber =
      tail !== undefined && [record.PhoneNumber, record.PhoneNumber2].some((p) => phoneTail(p) === tail);
  }
  return fields;
}
