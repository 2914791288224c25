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
 * Throws (failing the test) when any of `secrets` is reachable from `value`; the message names the secret by its
 * place in the list and its length, never by any of its characters, so the failure report does not leak it either
 * (a short secret's first characters would be the whole of it).
 *
 * Refuses, before searching, a list with no secret and a secret that is not a non-empty string, naming its place
 * (`secrets[1]`): a test that forgot to pass a secret (an unset variable, a field read off the wrong object) would
 * otherwise check nothing, and an empty one would be found in every text.
 */
export function expectNoSecrets(value: unknown, secrets: readonly string[]): void {
  if (!Array.isArray(secrets) || secrets.length === 0) {
    throw new TypeError('expectNoSecrets: no secrets given, so nothing would be checked');
  }
  secrets.forEach((secret: unknown, index) => {
    if (typeof secret !== 'string' || secret.length === 0) {
      // Never the value itself: a secret passed as a Buffer or a number would print in the message.
      const found =
        secret === undefined || secret === null
          ? String(secret)
          : typeof secret === 'string'
            ? 'an empty string'
            : `a ${typeof secret}`;
      throw new TypeError(
        `expectNoSecrets: secrets[${index}] is ${found}, not a secret: nothing would be checked for it`,
      );
    }
  });
  const text = reachableText(value);
  secrets.forEach((secret, index) => {
    if (text.includes(secret)) {
      throw new Error(`a secret leaked: secrets[${index}] (${secret.length} characters) is reachable from the value`);
    }
  });
}
