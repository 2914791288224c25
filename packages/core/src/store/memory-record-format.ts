import type { DeserializedData } from 'keyv';

/**
 * Keyv's envelope (the value and, when set with a TTL, when it expires) as the JSON array
 * `[expires, value]` (`[null, value]` without a TTL). Still plain JSON, 18 characters shorter than
 * `{"value":…,"expires":…}`, and its expiry sits at a fixed place, so the sweep reads it without
 * parsing the record (docs/decisions/0020-expiring-memory-store.md).
 */
export function serializeMemoryRecord<Value>(envelope: DeserializedData<Value>): string {
  return JSON.stringify([envelope.expires ?? null, envelope.value]);
}

/** The inverse of {@link serializeMemoryRecord}. */
export function deserializeMemoryRecord<Value>(stored: string): DeserializedData<Value> {
  const [expires, value] = JSON.parse(stored) as [number | null, Value];
  return expires === null ? { value } : { value, expires };
}

/**
 * The expiry of a record written by {@link serializeMemoryRecord}, read from its leading digits
 * without parsing the rest; undefined when it has none (or is not such a record).
 */
export function expiresOf(stored: unknown): number | undefined {
  if (typeof stored !== 'string' || !stored.startsWith('[')) return undefined;
  // The first comma ends the expiry: a number or null holds none.
  const comma = stored.indexOf(',');
  if (comma < 2) return undefined;
  const expires = Number(stored.slice(1, comma));
  return Number.isFinite(expires) ? expires : undefined;
}
