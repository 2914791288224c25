import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** The store (Keyv, Redis) failed or is unreachable. Never reported as "flow not found". */
export class StoreError extends VerikitError {
  constructor(message = 'the flow store is unavailable', options: VerikitErrorOptions = {}) {
    super('store_unavailable', message, { isRetryable: true, ...options });
    this.name = 'StoreError';
  }

  static override isInstance(error: unknown): error is StoreError {
    return VerikitError.isInstance(error) && error.code === 'store_unavailable';
  }
}
