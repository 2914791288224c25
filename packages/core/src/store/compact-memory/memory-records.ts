import type { ExpiringMap } from './expiring-map.js';
import type { MapSection } from './map-sections.js';
import {
  deliveryRouteKey,
  flowRecordKey,
  limitRecordKey,
  phoneNumberKeyPart,
  routeRecordKey,
  sendsLimitKey,
} from '../../keys/store-keys.js';

/** Where {@link createMemoryKeyv}'s Keyv keeps a key: its namespace, then the key. */
export const memoryKeyPrefix = 'verikit:';

/**
 * The sections of the embedded map: the three kinds of key every phone flow writes, each kept without its
 * prefix, flow records in their compact form (docs/decisions/1350-compact-memory-records.md).
 */
export const memorySections: readonly MapSection[] = [
  { prefix: `${memoryKeyPrefix}${flowRecordKey('')}`, records: true },
  { prefix: `${memoryKeyPrefix}${routeRecordKey(deliveryRouteKey(''))}`, hex: true },
  { prefix: `${memoryKeyPrefix}${limitRecordKey(sendsLimitKey(phoneNumberKeyPart('')))}`, hex: true },
];

/** Deletes the value under `key` when its expiry has passed, as `keyv.get` does; true when it did. */
function expired(map: ExpiringMap, key: string, expires: number | undefined): boolean {
  if (expires === undefined || Date.now() <= expires) return false;
  map.delete(key);
  return true;
}

/**
 * The value stored under `key` in the embedded map, read as `keyv.get` would: a value past its expiry is deleted
 * and reads as absent. Read straight from the map, it skips Keyv's hooks, statistics and promises
 * (docs/decisions/0500-flow-records-read-from-the-memory-map.md).
 */
export function readLive<T>(map: ExpiringMap, key: string): T | undefined {
  const stored = map.read(key);
  if (stored === undefined || expired(map, key, stored.expires)) return undefined;
  return stored.value as T;
}

/** The version of the live flow record under `key` (0: none), read without decoding the record. */
export function liveVersion(map: ExpiringMap, key: string): number {
  if (!map.has(key) || expired(map, key, map.expiresAt(key))) return 0;
  return map.versionAt(key);
}
