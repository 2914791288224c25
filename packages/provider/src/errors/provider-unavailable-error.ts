import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** The provider could not be reached or answered 408/429/5xx, or the request timed out. Whether a send happened may be unknown. */
export class ProviderUnavailableError extends VerikitError {
  constructor(message: string, options: VerikitErrorOptions = {}) {
    super('provider_unavailable', message, { isRetryable: true, ...options });
    this.name = 'ProviderUnavailableError';
  }

  static override isInstance(error: unknown): error is ProviderUnavailableError {
    return VerikitError.isInstance(error) && error.code === 'provider_unavailable';
  }
}
