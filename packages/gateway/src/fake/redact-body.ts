import { maskDigits } from '@verikit/provider';
import { maskPhoneNumber } from './mask-phone-number.js';

const secretFields = new Set(['otp', 'code', 'number', 'apiKey', 'apikey']);
const phoneFields = new Set(['phoneNumber', 'to']);

/**
 * A copy of a request body fit to print: codes, OTPs and identity numbers masked, phone numbers down to
 * their country code and last digits, long texts shortened. Every other text has its runs of 4+ digits
 * masked too: an SMS or WhatsApp message may carry a code.
 */
export function redactBody(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const summary: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body).slice(0, 10)) {
    if (secretFields.has(key)) summary[key] = '•••';
    else if (phoneFields.has(key) && (typeof value === 'string' || typeof value === 'number'))
      summary[key] = maskPhoneNumber(String(value));
    else if (typeof value === 'string') summary[key] = shorten(maskDigits(value));
    else if (typeof value === 'number' && /\d{4}/.test(String(value))) summary[key] = maskDigits(String(value));
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) summary[key] = value;
    else summary[key] = typeof value;
  }
  return summary;
}

/** Masking comes first: shortening could cut a run of digits below the length `maskDigits` masks. */
function shorten(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}
