import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** A webhook failed verification: forged, stale, or signed with another secret. */
export class WebhookVerificationError extends VerikitError {
  constructor(message: string, options: VerikitErrorOptions = {}) {
    super('webhook_unverified', message, options);
    this.name = 'WebhookVerificationError';
  }

  static override isInstance(error: unknown): error is WebhookVerificationError {
    return VerikitError.isInstance(error) && error.code === 'webhook_unverified';
  }
}
