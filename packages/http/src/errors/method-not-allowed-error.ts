import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** The route exists but does not take this method. `allow` lists the methods it takes (sent as the `Allow` header). */
export class MethodNotAllowedError extends VerikitError {
  /** The methods the route takes, for the `Allow` header. */
  readonly allow: readonly string[];

  constructor(allow: readonly string[], options: VerikitErrorOptions = {}) {
    super('method_not_allowed', `this route takes ${allow.join(', ')}`, options);
    this.name = 'MethodNotAllowedError';
    this.allow = allow;
  }

  static override isInstance(error: unknown): error is MethodNotAllowedError {
    return VerikitError.isInstance(error) && error.code === 'method_not_allowed';
  }
}
