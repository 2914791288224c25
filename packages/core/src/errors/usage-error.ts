import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/**
 * The engine was called in an order or a way it does not support: a bug in the calling code, not
 * an outage. Never retryable: the same call fails the same way until the code changes. The message
 * says what to do instead.
 */
export class UsageError extends VerikitError {
  constructor(message: string, options: VerikitErrorOptions = {}) {
    super('usage_error', message, { ...options, isRetryable: false });
    this.name = 'UsageError';
  }

  static override isInstance(error: unknown): error is UsageError {
    return VerikitError.isInstance(error) && error.code === 'usage_error';
  }
}
