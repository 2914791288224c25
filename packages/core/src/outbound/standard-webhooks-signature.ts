import { createHmac } from 'node:crypto';

const secretPrefix = 'whsec_';
const base64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The key of a Standard Webhooks secret (`whsec_<base64>`, 24 to 64 bytes once decoded), or undefined when
 * `secret` is not one. The message never holds the secret.
 */
export function webhookSecretKey(secret: unknown): Buffer | undefined {
  if (typeof secret !== 'string' || !secret.startsWith(secretPrefix)) return undefined;
  const encoded = secret.slice(secretPrefix.length);
  if (!base64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= 24 && key.length <= 64 ? key : undefined;
}

/**
 * The `webhook-signature` of one attempt (standardwebhooks.com): `v1,` and the base64 HMAC-SHA256, under
 * the secret's key, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
export function signWebhook(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
