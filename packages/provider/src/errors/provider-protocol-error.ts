import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** The provider answered something we cannot read: not JSON, or JSON of the wrong shape. `field` names what was missing. */
export class ProviderProtocolError extends VerikitError {
  constructor(message: string, options: VerikitErrorOptions = {}) {
    super('provider_protocol', message, options);
    this.name = 'ProviderProtocolError';
  }

  static override isInstance(error: unknown): error is ProviderProtocolError {
    return VerikitError.isInstance(error) && error.code === 'provider_protocol';
  }
}
