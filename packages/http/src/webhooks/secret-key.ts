import { InvalidInputError } from '@verikit/provider';

const standardPrefix = 'whsec_';
const base64Pattern = /^[A-Za-z0-9+/]+={0,2}$/;

/** The shortest key accepted, in bytes (128 bits). Dashboards issue 24 to 64. */
const minimumKeyBytes = 16;

/**
 * Turns a configured webhook secret into key bytes:
 * - `whsec_<base64>` (the Standard Webhooks form a dashboard shows): the base64 is decoded;
 * - anything else: the UTF-8 bytes of the string, as they are.
 *
 * A bare base64 key without the prefix is therefore used as text, not decoded: prefix it with
 * `whsec_` to have it decoded. Throws an `InvalidInputError` (never echoing the secret) when the
 * secret is empty, not valid base64 after `whsec_`, or shorter than {@link minimumKeyBytes}.
 */
export function webhookKeyOf(secret: string, field = 'webhooks.secret'): Uint8Array {
  let key: Uint8Array;
  if (secret.startsWith(standardPrefix)) {
    const encoded = secret.slice(standardPrefix.length);
    if (encoded.length % 4 !== 0 || !base64Pattern.test(encoded)) {
      throw new InvalidInputError([{ field, message: 'starts with whsec_ but is not followed by valid base64' }]);
    }
    key = new Uint8Array(Buffer.from(encoded, 'base64'));
  } else {
    key = new TextEncoder().encode(secret);
  }
  if (key.length < minimumKeyBytes) {
    throw new InvalidInputError([{ field, message: `must be a key of at least ${minimumKeyBytes} bytes` }]);
  }
  return key;
}
