import type { SecretBox } from '../secrets/secrets.js';
import { startIdempotencyKey, startLiveKey } from '../keys/store-keys.js';

/**
 * The keys that make a start idempotent (names from keys/store-keys.ts). Both carry only keyed hashes: an
 * idempotency key or an owner is never stored in the clear.
 */
export const startKeys = {
  /** The flow a start with this idempotency key (and owner) created. */
  idempotency(secrets: SecretBox, owner: string | undefined, idempotencyKey: string): string {
    return startIdempotencyKey(secrets.hash('start-idempotency', `${owner ?? ''}\0${idempotencyKey}`));
  },
  /** The live flow of an owner for a kind and a number (the number's key is already a keyed hash). */
  live(secrets: SecretBox, owner: string, kind: string, numberKey: string): string {
    return startLiveKey(secrets.hash('start-live', `${owner}\0${kind}\0${numberKey}`));
  },
} as const;
