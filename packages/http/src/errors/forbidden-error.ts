import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** The flow handler's `authorize` hook refused the request. Nothing was read from the body or changed. */
export class ForbiddenError extends VerikitError {
  constructor(message = 'this request is not allowed for this flow', options: VerikitErrorOptions = {}) {
    super('forbidden', message, options);
    this.name = 'ForbiddenError';
  }

  static override isInstance(error: unknown): error is ForbiddenError {
    return VerikitError.isInstance(error) && error.code === 'forbidden';
  }
}
