import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** Options of {@link ProviderUnavailableError}. */
export interface ProviderUnavailableErrorOptions extends VerikitErrorOptions {
  /** See {@link ProviderUnavailableError.requestSent}. */
  requestSent?: boolean;
  /** See {@link ProviderUnavailableError.maybeSent}. Default: `true` unless `requestSent` is `false`. */
  maybeSent?: boolean;
}

/** The provider could not be reached or answered 408/429/5xx, or the request timed out. Whether a send happened may be unknown. */
export class ProviderUnavailableError extends VerikitError {
  /**
   * `false` only when the request provably never reached the provider (connection refused, DNS failure):
   * another provider may then be tried without risking a second send. `true` when the provider answered
   * (408, 429, 5xx). Absent when it cannot be told (a timeout, a connection dropped after writing).
   */
  readonly requestSent: boolean | undefined;
  /**
   * Whether a message may have gone out despite the error: `true` for a timeout or a connection dropped after
   * the request left, and for an answer from a gateway in front of the provider (502, 504: the provider itself
   * may have sent); `false` when nothing can have been sent (the request never left, or the provider answered
   * that it failed: 408, 429, 500, 501, 503). A flow keeps its resend cooldown, and failover stays on this
   * provider, while it is `true` (docs/decisions/0920-maybe-sent.md). Safe default: `true` unless
   * `requestSent` is `false`.
   */
  readonly maybeSent: boolean;

  constructor(message: string, options: ProviderUnavailableErrorOptions = {}) {
    const { requestSent, maybeSent, ...rest } = options;
    super('provider_unavailable', message, { isRetryable: true, ...rest });
    this.name = 'ProviderUnavailableError';
    this.requestSent = requestSent;
    this.maybeSent = maybeSent ?? requestSent !== false;
  }

  static override isInstance(error: unknown): error is ProviderUnavailableError {
    return VerikitError.isInstance(error) && error.code === 'provider_unavailable';
  }
}
