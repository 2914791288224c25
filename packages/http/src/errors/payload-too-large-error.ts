import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** The request body is larger than the handler's `maxBodyBytes`. Reading stopped at the limit. */
export class PayloadTooLargeError extends VerikitError {
  /** The limit, for a message saying how much is accepted. */
  readonly maxBytes: number;

  constructor(maxBytes: number, options: VerikitErrorOptions = {}) {
    super('payload_too_large', `the body must be at most ${maxBytes} bytes`, { field: 'body', ...options });
    this.name = 'PayloadTooLargeError';
    this.maxBytes = maxBytes;
  }

  static override isInstance(error: unknown): error is PayloadTooLargeError {
    return VerikitError.isInstance(error) && error.code === 'payload_too_large';
  }
}
