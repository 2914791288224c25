import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './webhook-verification-error.js';
import type { VerifiedWebhook, WebhookVerifier, WebhookVerifierInput } from './webhook-verifier.js';

/**
 * The alternative scheme: an HMAC of the raw body, sent in a header of your choosing, for
 * example GitHub's `X-Hub-Signature-256: sha256=<hex>` is
 * `{ type: 'hmac-header', header: 'x-hub-signature-256', prefix: 'sha256=' }`.
 *
 * It signs no timestamp and no id, so it cannot refuse a stale webhook: a replay is refused only
 * while its body is remembered (`replayTtlMs`). Prefer Standard Webhooks where the sender offers it.
 */
export interface HmacHeaderScheme {
  /** Chooses this scheme over the default, Standard Webhooks. */
  readonly type: 'hmac-header';
  /** The header carrying the signature (any case). */
  readonly header: string;
  /** Default `sha256`. */
  readonly algorithm?: 'sha256' | 'sha512';
  /** How the digest is written in the header. Default `hex` (either case). `base64` accepts the URL-safe alphabet too. */
  readonly encoding?: 'hex' | 'base64';
  /** Text before the digest in the header, such as `sha256=`. Default none. */
  readonly prefix?: string;
}

/** Options of {@link createHmacHeaderVerifier}. */
export interface HmacHeaderVerifierOptions extends HmacHeaderScheme {
  /** The key bytes (see `webhookKeyOf`). */
  readonly key: Uint8Array;
}

const hexPattern = /^[0-9a-fA-F]+$/;
const base64Pattern = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * Verifies an HMAC of the raw body carried in one header, compared in constant time.
 *
 * The message id (for de-duplication) is derived from the digest: identical bodies are the same
 * message. It is a hash of the keyed digest, so it reveals nothing of the body, even a body as
 * guessable as a phone number and a status.
 */
export function createHmacHeaderVerifier(options: HmacHeaderVerifierOptions): WebhookVerifier {
  const header = options.header.toLowerCase();
  const algorithm = options.algorithm ?? 'sha256';
  const encoding = options.encoding ?? 'hex';
  const prefix = options.prefix ?? '';
  const { key } = options;

  return {
    verify({ body, headers }: WebhookVerifierInput): VerifiedWebhook {
      const value = headers[header]?.trim();
      if (!value) throw new WebhookVerificationError(`the ${header} header is required`, { field: header });
      if (!value.startsWith(prefix))
        throw new WebhookVerificationError(`the ${header} header does not start with the configured prefix`, {
          field: header,
        });
      const written = value.slice(prefix.length);
      const valid =
        encoding === 'hex' ? hexPattern.test(written) && written.length % 2 === 0 : base64Pattern.test(written);
      if (!valid)
        throw new WebhookVerificationError(`the ${header} header is not a ${encoding} digest`, { field: header });
      const given = Buffer.from(written, encoding === 'hex' ? 'hex' : 'base64');
      const expected = createHmac(algorithm, key).update(body, 'utf8').digest();
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new WebhookVerificationError(
          `the ${header} signature does not match the body and the configured secret`,
          { field: header, signatureMismatch: true },
        );
      }
      return { id: `hmac-${createHash('sha256').update(expected).digest('base64url').slice(0, 32)}` };
    },
  };
}
