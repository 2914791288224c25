import { expiresOf } from './record-expiry.js';

/** Where {@link createMemoryKeyv}'s Keyv keeps a key: its namespace, then the key. */
export const memoryKeyPrefix = 'verikit:';

/** The front of a record as the engine writes it: the version is read from there without parsing. */
const recordFront = /^\{"value":\{"schemaVersion":\d+,"id":"[\w-]*","kind":"[\w-]*","version":(\d+),/;

/**
 * The value Keyv stored under `key` in the map of the embedded Keyv, read as `keyv.get` would: a record
 * past its expiry is deleted and reads as absent. Read straight from the map, it skips Keyv's hooks,
 * statistics and promises (docs/decisions/0500-flow-records-read-from-the-memory-map.md).
 */
export function readLive(map: Map<string, string>, key: string): string | undefined {
  const stored = map.get(key);
  if (stored === undefined) return undefined;
  const expires = expiresOf(stored);
  if (expires !== undefined && Date.now() > expires) {
    map.delete(key);
    return undefined;
  }
  return stored;
}

/** The value in a stored Keyv envelope. */
export function storedValue<T>(stored: string): T {
  return (JSON.parse(stored) as { value: T }).value;
}

/** The version of a stored flow record (0: none), read from its front when the engine wrote it. */
export function versionOf(stored: string | undefined): number {
  if (stored === undefined) return 0;
  const front = recordFront.exec(stored);
  if (front !== null) return Number(front[1]);
  return storedValue<{ version?: number } | undefined>(stored)?.version ?? 0;
}

/** The envelope `keyv.set(key, value, ttlMs)` stores with a JSON serializer: `{ value, expires }`. */
export function envelope(value: unknown, ttlMs: number | undefined): string {
  return JSON.stringify({ value, expires: ttlMs === undefined || ttlMs === 0 ? undefined : Date.now() + ttlMs });
}
