import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** A webhook failed verification: forged, stale, or signed with another secret. */
export class WebhookVerificationError extends VerikitError {
  /** The signature was well-formed but made with another secret: a wrong secret, or a forger. */
  readonly signatureMismatch: boolean;

  constructor(message: string, options: VerikitErrorOptions & { signatureMismatch?: boolean } = {}) {
    const { signatureMismatch, ...errorOptions } = options;
    super('webhook_unverified', message, errorOptions);
    this.name = 'WebhookVerificationError';
    this.signatureMismatch = signatureMismatch === true;
  }

  static override isInstance(error: unknown): error is WebhookVerificationError {
    return VerikitError.isInstance(error) && error.code === 'webhook_unverified';
  }
}
