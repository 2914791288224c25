/**
 * The service's message made safe to show: at most 200 characters, control characters removed, and
 * runs of 4 or more digits masked, since a message could echo a code, a BVN/NIN or a phone number.
 */
export function safeProviderMessage(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  const cleaned = message
    .slice(0, 200)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\d{4,}/g, (digits) => '•'.repeat(Math.min(digits.length, 12)))
    .trim();
  return cleaned === '' ? undefined : cleaned;
}
