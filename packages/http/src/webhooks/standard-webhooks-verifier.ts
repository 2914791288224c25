import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './webhook-verification-error.js';
import type { VerifiedWebhook, WebhookVerifier, WebhookVerifierInput } from './webhook-verifier.js';

/** Options of {@link createStandardWebhooksVerifier}. */
export interface StandardWebhooksVerifierOptions {
  /** The key bytes (see `webhookKeyOf`). */
  readonly key: Uint8Array;
  /** How far a `webhook-timestamp` may be from the clock, either way. */
  readonly toleranceSeconds: number;
}

const timestampPattern = /^\d{1,15}$/;
const maximumSignatures = 16;

/**
 * Verifies [Standard Webhooks](https://www.standardwebhooks.com/): `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` headers, HMAC-SHA256 over `id.timestamp.body`.
 *
 * The signature is computed by the `standardwebhooks` package; the timestamp is checked here
 * against the injected clock, because the package's own `verify` reads `Date.now()` and has a
 * fixed window. Signatures are compared in constant time; every `v1,` signature in the header is
 * tried (senders list several while rotating secrets).
 */
export function createStandardWebhooksVerifier(options: StandardWebhooksVerifierOptions): WebhookVerifier {
  const signer = new Webhook(options.key, { format: 'raw' });
  const { toleranceSeconds } = options;
  const encoder = new TextEncoder();

  return {
    verify({ body, headers, now }: WebhookVerifierInput): VerifiedWebhook {
      const id = headers['webhook-id'];
      const timestamp = headers['webhook-timestamp'];
      const signatures = headers['webhook-signature'];
      if (!id || !timestamp || !signatures) {
        throw new WebhookVerificationError(
          'the webhook-id, webhook-timestamp and webhook-signature headers are required',
          {
            field: 'headers',
          },
        );
      }
      if (!timestampPattern.test(timestamp.trim())) {
        throw new WebhookVerificationError('webhook-timestamp must be whole seconds since the epoch', {
          field: 'webhook-timestamp',
        });
      }
      const seconds = Number(timestamp.trim());
      const nowSeconds = Math.floor(now / 1000);
      if (Math.abs(nowSeconds - seconds) > toleranceSeconds) {
        const which = seconds < nowSeconds ? 'too old' : 'too far in the future';
        throw new WebhookVerificationError(
          `webhook-timestamp is ${which}: the window is ${toleranceSeconds} s either side of now`,
          {
            field: 'webhook-timestamp',
          },
        );
      }
      const expected = encoder.encode(signer.sign(id, new Date(seconds * 1000), body));
      const candidates = signatures.trim().split(/\s+/).slice(0, maximumSignatures);
      let matched = false;
      for (const candidate of candidates) {
        const given = encoder.encode(candidate);
        // Every candidate is compared, so the time taken does not say which one matched.
        if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
      }
      if (!matched)
        throw new WebhookVerificationError('no webhook-signature matches the body and the configured secret', {
          field: 'webhook-signature',
          signatureMismatch: true,
        });
      return { id };
    },
  };
}
