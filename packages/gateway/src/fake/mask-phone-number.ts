/**
 * A phone number fit for a log line: the `+`, the country code's first three digits and the last four
 * (`+234••••••5678`), so two requests for two numbers can be told apart while most of each number stays
 * hidden. Shorter numbers show less (the last three, then nothing), so at least four digits are always
 * masked; a text that is not a `+` and digits is masked whole.
 */
export function maskPhoneNumber(text: string): string {
  const match = /^(\+?)(\d{7,15})$/.exec(text);
  if (match === null) return '•'.repeat(Math.min(text.length, 16));
  const plus = match[1] ?? '';
  const digits = match[2] ?? '';
  const tail = digits.length >= 10 ? 4 : 3;
  const head = digits.length - tail - 3 >= 4 ? 3 : 0;
  return `${plus}${digits.slice(0, head)}${'•'.repeat(digits.length - head - tail)}${digits.slice(-tail)}`;
}
