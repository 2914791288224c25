/**
 * A run of 4 or more digits, unless it is a duration verikit writes itself (`within 10000 ms`: the whole run
 * followed by ` ms`), which is never a number, a code or an identity number.
 */
const maskedDigits = /\d{4,}(?!\d| ms\b)/g;

/**
 * Masks every run of 4 or more digits (a code, a BVN/NIN, a phone number) with `•`, at most 12 of them. A
 * duration in milliseconds (`10000 ms`) is left as it is.
 */
export function maskDigits(text: string): string {
  return text.replace(maskedDigits, (digits) => '•'.repeat(Math.min(digits.length, 12)));
}

/**
 * A provider's message made safe to store and show: at most 200 characters, control characters
 * removed, and runs of 4 or more digits masked, since a message could echo a code, a BVN/NIN or a
 * phone number. Providers use it for `providerMessage`; the engine applies it to every error a flow shows.
 */
export function safeProviderMessage(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  const cleaned = message
    .slice(0, 200)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
  return cleaned === '' ? undefined : maskDigits(cleaned);
}
