import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** The flow changed under us more times than the engine retries. Nothing was written by this call; it may be retried. */
export class ConflictError extends VerikitError {
  constructor(
    message = 'the flow was changed concurrently too many times; try again',
    options: VerikitErrorOptions = {},
  ) {
    super('conflict', message, { isRetryable: true, ...options });
    this.name = 'ConflictError';
  }

  static override isInstance(error: unknown): error is ConflictError {
    return VerikitError.isInstance(error) && error.code === 'conflict';
  }
}
