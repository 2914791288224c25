import type { MiddlewareHandler } from 'hono';
import { requestHeader } from './request-header.js';

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
  preflight(request: Request, methods: readonly string[]): Response {
    const allow = [...methods, 'OPTIONS'].join(', ');
    const headers: Record<string, string> = { allow, ...this.headersFor(request.headers.get('origin') ?? undefined) };
    const options = this.#options;
    if (options !== undefined && headers['access-control-allow-origin'] !== undefined) {
      delete headers['access-control-expose-headers'];
      headers['access-control-allow-methods'] = allow;
      const requested = request.headers.get('access-control-request-headers');
      const allowHeaders = options.allowHeaders?.join(', ') ?? requested;
      if (allowHeaders) headers['access-control-allow-headers'] = allowHeaders;
      if (options.allowHeaders === undefined && requested) headers.vary = 'Origin, Access-Control-Request-Headers';
      if (options.maxAge !== undefined) headers['access-control-max-age'] = String(options.maxAge);
    }
    return new Response(null, { status: 204, headers });
  }
}

/**
 * Sets headers on a response, copying it first when its headers are immutable (a response from
 * `fetch`, which a hook could return). Returns the response that carries them.
 */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const entries = Object.entries(headers);
  if (entries.length === 0) return response;
  try {
    for (const [name, value] of entries) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of entries) copy.headers.set(name, value);
    return copy;
  }
}

/** The Hono context variables of the flow handler: `corsDone` when the answer must not get CORS headers (a preflight, the webhook route). */
export interface CorsEnv {
  Variables: { corsDone: boolean };
}

/**
 * The CORS of the flow handler as Hono middleware: after the route has answered (a success, an
 * error, a 404 or a stream), adds the headers {@link Cors.headersFor} gives, unless the route said
 * they are done. Preflights are answered by each route, since only the route knows its methods.
 */
export function corsMiddleware(cors: Cors): MiddlewareHandler<CorsEnv> {
  return async (c, next) => {
    await next();
    if (c.get('corsDone') === true) return;
    const response = withHeaders(c.res, cors.headersFor(requestHeader(c.req.raw, c.env, 'origin')));
    if (response !== c.res) c.res = response;
  };
}
