import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** The provider refused our credentials (401/403). The key itself is never included. */
export class ProviderAuthenticationError extends VerikitError {
  constructor(message = 'the provider refused the API key', options: VerikitErrorOptions = {}) {
    super('provider_authentication', message, options);
    this.name = 'ProviderAuthenticationError';
  }

  static override isInstance(error: unknown): error is ProviderAuthenticationError {
    return VerikitError.isInstance(error) && error.code === 'provider_authentication';
  }
}
