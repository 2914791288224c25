import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** Options of {@link ProviderUnavailableError}. */
export interface ProviderUnavailableErrorOptions extends VerikitErrorOptions {
  /** See {@link ProviderUnavailableError.requestSent}. */
  requestSent?: boolean;
}

/** The provider could not be reached or answered 408/429/5xx, or the request timed out. Whether a send happened may be unknown. */
export class ProviderUnavailableError extends VerikitError {
  /**
   * `false` only when the request provably never reached the provider (connection refused, DNS failure):
   * another provider may then be tried without risking a second send. `true` when the provider answered
   * (408, 429, 5xx). Absent when it cannot be told (a timeout, a connection dropped after writing).
   */
  readonly requestSent: boolean | undefined;

  constructor(message: string, options: ProviderUnavailableErrorOptions = {}) {
    const { requestSent, ...rest } = options;
    super('provider_unavailable', message, { isRetryable: true, ...rest });
    this.name = 'ProviderUnavailableError';
    this.requestSent = requestSent;
  }

  static override isInstance(error: unknown): error is ProviderUnavailableError {
    return VerikitError.isInstance(error) && error.code === 'provider_unavailable';
  }
}
