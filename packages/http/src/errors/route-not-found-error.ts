import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/** No route of the flow handler matches the request's path. The path is not echoed back. */
export class RouteNotFoundError extends VerikitError {
  constructor(message = 'no route matches this path', options: VerikitErrorOptions = {}) {
    super('route_not_found', message, options);
    this.name = 'RouteNotFoundError';
  }

  static override isInstance(error: unknown): error is RouteNotFoundError {
    return VerikitError.isInstance(error) && error.code === 'route_not_found';
  }
}
