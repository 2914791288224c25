/**
 * Masks every run of 4 or more digits (a code, a BVN/NIN, a phone number) with `•`, at most 12 of them,
 * except a duration in milliseconds (`15000 ms`): our own timeout messages stay readable.
 */
export function maskDigits(text: string): string {
  return text.replace(/\d{4,}(?!\d)(?! ?ms\b)/g, (digits) => '•'.repeat(Math.min(digits.length, 12)));
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
