import { phoneNumberKeyPart } from '../keys/store-keys.js';
import type { SecretBox } from '../secrets/secrets.js';

/**
 * The key part that stands for a phone number in store key names (`ussd:<hash>`,
 * `sends:phone:<hash>`): an HMAC with a key derived from the engine's secret, as the BVN/NIN's
 * `numberHash`. Store key names show up in `SCAN` output, slow logs, metrics and backups, where a
 * number in clear would be personal data; the hash is stable for one secret, so every instance
 * finds the same key, and cannot be reversed by trying every number without the secret.
 */
export function phoneNumberKey(secrets: SecretBox, phoneNumber: unknown): string {
  return phoneNumberKeyPart(secrets.hash('number:phone', String(phoneNumber)));
}
