import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** The provider understood the request and refused it (the service answered `success: false`, or a 4xx). */
export class ProviderRejectedError extends VerikitError {
  /** The provider's own words, when it gave some, with secrets redacted: for logs and support. */
  readonly providerMessage: string | undefined;

  constructor(message: string, options: VerikitErrorOptions & { providerMessage?: string } = {}) {
    super('provider_rejected', message, options);
    this.name = 'ProviderRejectedError';
    this.providerMessage = options.providerMessage;
  }

  static override isInstance(error: unknown): error is ProviderRejectedError {
    return VerikitError.isInstance(error) && error.code === 'provider_rejected';
  }
}
