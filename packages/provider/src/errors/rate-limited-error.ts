import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** A limit was reached (sends per phone number per hour). `retryAt` says when the call may succeed. */
export class RateLimitedError extends VerikitError {
  readonly retryAt: number;

  constructor(message: string, retryAt: number, options: VerikitErrorOptions = {}) {
    super('rate_limited', message, { isRetryable: true, ...options });
    this.name = 'RateLimitedError';
    this.retryAt = retryAt;
  }

  static override isInstance(error: unknown): error is RateLimitedError {
    return VerikitError.isInstance(error) && error.code === 'rate_limited';
  }
}
