import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** The request body is not declared as JSON (`Content-Type: application/json`, UTF-8). */
export class UnsupportedMediaTypeError extends VerikitError {
  constructor(
    message = 'the body must be JSON: send Content-Type: application/json',
    options: VerikitErrorOptions = {},
  ) {
    super('unsupported_media_type', message, { field: 'content-type', ...options });
    this.name = 'UnsupportedMediaTypeError';
  }

  static override isInstance(error: unknown): error is UnsupportedMediaTypeError {
    return VerikitError.isInstance(error) && error.code === 'unsupported_media_type';
  }
}
