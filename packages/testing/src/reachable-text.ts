import { inspect } from 'node:util';

/**
 * Every string reachable from a value: own properties (hidden ones too, so an error's `message`,
 * `stack` and `cause` chain), arrays, how it prints and its JSON. What a secrets test searches: a
 * secret must be nowhere in an error, a view or a log line, not merely absent from `message`.
 */
export function reachableText(value: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const walk = (current: unknown): void => {
    if (current === null || current === undefined) return;
    if (typeof current !== 'object' && typeof current !== 'function') {
      parts.push(String(current));
      return;
    }
    if (seen.has(current)) return;
    seen.add(current);
    for (const key of Reflect.ownKeys(current)) {
      if (typeof key === 'string') parts.push(key);
      walk((current as Record<PropertyKey, unknown>)[key]);
    }
  };
  walk(value);
  parts.push(String(value), inspect(value, { depth: Infinity, showHidden: true }));
  try {
    parts.push(JSON.stringify(value) ?? '');
  } catch {
    // circular: the walk covered it
  }
  return parts.join('\n');
}

/**
 * Throws (failing the test) when any of `secrets` is reachable from `value`; the message shows only
 * the first three characters of the secret, so the failure report does not leak it either.
 */
export function expectNoSecrets(value: unknown, secrets: readonly string[]): void {
  const text = reachableText(value);
  for (const secret of secrets) {
    if (text.includes(secret)) throw new Error(`a secret leaked: ${secret.slice(0, 3)}…`);
  }
}
