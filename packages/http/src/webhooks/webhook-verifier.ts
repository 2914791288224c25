import type { RawWebhookV1 } from '@verikit/provider';

/** A webhook whose signature was checked, with the id used to accept it only once. */
export interface VerifiedWebhook {
  /**
   * Identifies the message across redeliveries: the same message sent twice has the same id.
   * Used as the de-duplication key, and logged: it must not contain a secret or personal data.
   */
  readonly id: string;
}

/** What a verifier is given: the raw webhook and the time from the engine's clock. */
export interface WebhookVerifierInput extends RawWebhookV1 {
  /** Milliseconds since the epoch, from the injected clock. Check timestamps against this, never `Date.now()`. */
  readonly now: number;
}

/**
 * A signature scheme of your own. Throw a `WebhookVerificationError` (or anything) when the
 * webhook is forged, stale or unsigned; return its id when it is genuine.
 *
 * `headers` has lower-case names. `body` is the raw body exactly as received.
 *
 * @example
 * const verifier: WebhookVerifier = {
 *   verify({ body, headers, now }) {
 *     // check headers['x-signature'] over body, refuse old timestamps ...
 *     return { id: headers['x-delivery-id']! };
 *   },
 * };
 */
export interface WebhookVerifier {
  /** Returns the message id when the webhook is genuine; throws when it is not. */
  verify(input: WebhookVerifierInput): VerifiedWebhook | Promise<VerifiedWebhook>;
}
