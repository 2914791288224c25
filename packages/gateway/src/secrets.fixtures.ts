import { expect } from 'vitest';

/** Every string reachable from a value: own properties (enumerable or not), `cause` chains, arrays, JSON. */
export function reachableText(value: unknown, seen = new Set<unknown>()): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' && typeof value !== 'function') return [String(value)];
  if (seen.has(value)) return [];
  seen.add(value);
  const texts: string[] = [];
  if (value instanceof Error) texts.push(value.message, value.stack ?? '', String(value));
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key === 'symbol') continue;
    texts.push(key, ...reachableText((value as Record<string, unknown>)[key], seen));
  }
  if (value instanceof Error && value.cause !== undefined) texts.push(...reachableText(value.cause, seen));
  try {
    texts.push(JSON.stringify(value) ?? '');
  } catch {
    // circular: covered by the walk
  }
  return texts;
}

/** Fails when any secret appears in anything reachable from `value`. */
export function expectNoSecrets(value: unknown, secrets: readonly string[]): void {
  const texts = reachableText(value).join('\n');
  for (const secret of secrets) expect(texts.includes(secret), `a secret leaked: ${secret.slice(0, 3)}…`).toBe(false);
}
