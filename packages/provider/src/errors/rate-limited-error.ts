import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/**
 * A limit was reached (sends per phone number per hour, the send guard's limits, a provider's). `retryAt`
 * says when the call may succeed (ms since the epoch, on the clock of whoever counted); `retryAfterMs`
 * says how long to wait from now, which needs no shared clock (an HTTP `Retry-After`).
 */
export class RateLimitedError extends VerikitError {
  /** When the call may succeed, in ms since the epoch, on the clock of whoever counted. */
  readonly retryAt: number;
  /** How long to wait before the call may succeed, in ms. Default: `retryAt` less the system clock's now. */
  readonly retryAfterMs: number;

  constructor(message: string, retryAt: number, options: VerikitErrorOptions & { retryAfterMs?: number } = {}) {
    const { retryAfterMs, ...rest } = options;
    super('rate_limited', message, { isRetryable: true, ...rest });
    this.name = 'RateLimitedError';
    this.retryAt = retryAt;
    this.retryAfterMs = retryAfterMs ?? Math.max(0, retryAt - Date.now());
  }

  static override isInstance(error: unknown): error is RateLimitedError {
    return VerikitError.isInstance(error) && error.code === 'rate_limited';
  }
}
