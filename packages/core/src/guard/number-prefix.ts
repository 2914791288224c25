import { phoneNumberLibrary } from '@verikit/provider';

/** Digits of every number a prefix always leaves out, so that a prefix never names one number. */
const hiddenDigits = 3;

/** What the guard reads from a phone number: its country and the prefix it counts sends under. */
export interface NumberFacts {
  /** ISO 3166-1 alpha-2, or undefined for numbers of no country (`+800`, `+882`) and unreadable ones. */
  readonly country: string | undefined;
  /**
   * `<country calling code>:<first national digits>`: the first `digits` digits of the national
   * significant number, but never more than all of them but three (`+2348012345678`, 7: `234:8012345`).
   */
  readonly prefix: string;
}

/** The country and the counted prefix of an E.164 number (checked valid before it gets here). */
export function numberFactsOf(phoneNumber: string, digits: number): NumberFacts {
  let country: string | undefined;
  let callingCode: string;
  let national: string;
  try {
    const parsed = phoneNumberLibrary().parsePhoneNumber(phoneNumber);
    country = parsed.country;
    callingCode = parsed.countryCallingCode;
    national = parsed.nationalNumber;
  } catch {
    // Not expected (start checks numbers): count it under its leading digits rather than not at all.
    callingCode = '?';
    national = phoneNumber.replace(/\D/g, '');
  }
  return {
    country,
    prefix: `${callingCode}:${national.slice(0, Math.max(0, Math.min(digits, national.length - hiddenDigits)))}`,
  };
}
