const expiresField = ',"expires":';

/**
 * When a record the embedded Keyv stored expires (ms since epoch), or undefined when it never does.
 * Keyv stores `JSON.stringify({ value, expires })`: `expires`, when there is one, is the last field,
 * so it is read from the tail without parsing the record. A value's own `expires` field sits
 * deeper, before at least two closing braces, and never reads as a number.
 * The embedded map reads it from strings it keeps as given (memory-encoding.ts).
 */
export function expiresOf(stored: unknown): number | undefined {
  if (typeof stored !== 'string' || !stored.endsWith('}')) return undefined;
  const field = stored.lastIndexOf(expiresField);
  if (field < 0) return undefined;
  const digits = stored.slice(field + expiresField.length, -1);
  const expires = Number(digits);
  return digits !== '' && Number.isFinite(expires) ? expires : undefined;
}
