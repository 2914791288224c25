import type { RouteAnswer, RouteRequest } from './routes/route-request.js';

/** Cross-origin access for browsers on other origins. Without it, no CORS header is sent. */
export interface CorsOptions {
  /**
   * The origins allowed: `'*'` (any, without credentials), one origin (`https://app.example.com`),
   * a list, or a function deciding per origin.
   */
  origin: string | readonly string[] | ((origin: string) => boolean);
  /** Sends `Access-Control-Allow-Credentials: true` (cookies, HTTP auth). Refused with `origin: '*'`. */
  credentials?: boolean;
  /** How long a browser may cache a preflight answer, in seconds. */
  maxAge?: number;
  /**
   * Request headers a browser may send. Default: the headers the preflight asks for are allowed
   * (the origin check is what keeps other sites out).
   */
  allowHeaders?: readonly string[];
}

/** Response headers a browser script may read: `Retry-After` on 429 and 503. */
const exposedHeaders = 'retry-after, location';

/** Applies {@link CorsOptions} to requests. */
export class Cors {
  readonly #options: CorsOptions | undefined;

  constructor(options: CorsOptions | undefined) {
    this.#options = options;
  }

  /** The value for `Access-Control-Allow-Origin`, or undefined when the request's `Origin` is not allowed. */
  allowedOrigin(origin: string | undefined): string | undefined {
    const options = this.#options;
    if (options === undefined || origin === undefined) return undefined;
    const { origin: allowed } = options;
    if (allowed === '*') return '*';
    if (typeof allowed === 'string') return allowed === origin ? origin : undefined;
    if (typeof allowed === 'function') return allowed(origin) ? origin : undefined;
    return allowed.includes(origin) ? origin : undefined;
  }

  /** CORS headers for an actual (not preflight) response to a request with this `Origin`. */
  headersFor(requestOrigin: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.#options === undefined) return headers;
    const origin = this.allowedOrigin(requestOrigin);
    if (this.#options.origin !== '*') headers.vary = 'Origin';
    if (origin === undefined) return headers;
    headers['access-control-allow-origin'] = origin;
    headers['access-control-expose-headers'] = exposedHeaders;
    if (this.#options.credentials === true) headers['access-control-allow-credentials'] = 'true';
    return headers;
  }

  /** The answer to an `OPTIONS` request on a route taking `methods`. */
  preflight(request: Pick<RouteRequest, 'header'>, methods: readonly string[]): RouteAnswer {
    const allow = [...methods, 'OPTIONS'].join(', ');
    const headers: Record<string, string> = { allow, ...this.headersFor(request.header('origin')) };
    const options = this.#options;
    if (options !== undefined && headers['access-control-allow-origin'] !== undefined) {
      delete headers['access-control-expose-headers'];
      headers['access-control-allow-methods'] = allow;
      const requested = request.header('access-control-request-headers');
      const allowHeaders = options.allowHeaders?.join(', ') ?? requested;
      if (allowHeaders) headers['access-control-allow-headers'] = allowHeaders;
      if (options.allowHeaders === undefined && requested) headers.vary = 'Origin, Access-Control-Request-Headers';
      if (options.maxAge !== undefined) headers['access-control-max-age'] = String(options.maxAge);
    }
    return { status: 204, headers };
  }

  /** `answer` with the CORS headers for `request` (none without CORS options). */
  answerWith(answer: RouteAnswer, request: Pick<RouteRequest, 'header'>): RouteAnswer {
    if (this.#options === undefined) return answer;
    return { ...answer, headers: { ...answer.headers, ...this.headersFor(request.header('origin')) } };
  }
}
