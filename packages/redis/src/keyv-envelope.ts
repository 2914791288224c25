/**
 * The bytes Keyv writes for a value: `JSON.stringify({ value, expires })`, where `expires` is the
 * writer's wall clock plus the TTL (absent without a TTL). Every key this package writes uses this
 * shape, so `keyv.get(key)` on a Keyv with a JSON serializer reads it back, and what Keyv writes is
 * read here (docs/decisions/0301-keyv-compatible-records.md).
 */
interface KeyvEnvelope<T> {
  readonly value: T;
  readonly expires?: number;
}

/** Encodes `value` exactly as `keyv.set(key, value, ttlMs)` would with `serialize: JSON.stringify`. */
export function encodeEnvelope(value: unknown, ttlMs: number | undefined, wallNow: number = Date.now()): string {
  return JSON.stringify({ value, expires: ttlMs === undefined ? undefined : wallNow + ttlMs });
}

/**
 * Decodes what Keyv (or this package) wrote. Returns `undefined` for a missing key. Expiry is left
 * to Redis (`PX`): Redis's clock decides, on every instance alike, so `expires` is not consulted.
 *
 * @throws SyntaxError when the bytes are not JSON, TypeError when they are not an envelope.
 */
export function decodeEnvelope<T>(raw: string | null | undefined): T | undefined {
  if (raw === null || raw === undefined) return undefined;
  const parsed = JSON.parse(raw) as unknown;
  if (typeof parsed !== 'object' || parsed === null || !('value' in parsed))
    throw new TypeError('the stored value is not a Keyv envelope');
  return (parsed as KeyvEnvelope<T>).value;
}

/**
 * The TTL Redis is given for a Keyv TTL: Keyv treats 0 (and no TTL) as "never expires"; Redis wants a
 * positive whole number of milliseconds.
 */
export function redisTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined || !Number.isFinite(ttlMs) || ttlMs === 0) return undefined;
  return Math.max(1, Math.ceil(ttlMs));
}
