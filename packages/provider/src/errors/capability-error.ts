import { VerikitError, type VerikitErrorOptions } from './verikit-error.js';

/** The configured provider lacks a capability or channel the call needs (no USSD, no voice channel). */
export class CapabilityError extends VerikitError {
  /** What was missing, in words (`phone verification by voice`), for the message and logs. */
  readonly capability: string;

  constructor(capability: string, providerName: string, options: VerikitErrorOptions = {}) {
    super('capability_missing', `provider ${providerName} does not support ${capability}`, options);
    this.name = 'CapabilityError';
    this.capability = capability;
  }

  static override isInstance(error: unknown): error is CapabilityError {
    return VerikitError.isInstance(error) && error.code === 'capability_missing';
  }
}
