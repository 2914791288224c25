import { MethodNotAllowedError } from '../errors/method-not-allowed-error.js';
import { RouteNotFoundError } from '../errors/route-not-found-error.js';
import type { RouteAnswer, RouteRequest } from './route-request.js';

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

/** A route's work: the request and the `:id` path parameter (percent-decoded, not yet validated). */
export type RouteWork = (request: RouteRequest, id: string | undefined) => Promise<RouteAnswer>;

/** A route as declared: where it is, the methods it takes, whether browsers on other origins may call it, its work. */
export interface RouteDeclaration {
  /** Below the base path, literal segments and at most one `:id` segment (`/flows/:id/events`). */
  readonly path: string;
  readonly methods: readonly string[];
  /** False for a route that answers servers, not browsers (the webhook route): no CORS header, whatever the options. */
  readonly cors: boolean;
  readonly work: RouteWork;
}

/** One route of the table: its path and methods, and its answer to any request on that path. */
export interface TableRoute {
  /** Below the table's base path, as declared. */
  readonly path: string;
  readonly methods: readonly string[];
  /**
   * Answers a request on this path, whatever its method: `OPTIONS` is the preflight, another method not in
   * `methods` a 405 with `Allow`; errors are answers. Never throws.
   */
  readonly answer: RouteWork;
}

/**
 * The routes of a flow handler, declared once: every adapter is built from this table (the Hono app of the Web path
 * in web/, Node's own path in node/, decision 1510). Each adapter matches a request to one route and calls its
 * `answer`; what a route does, its methods, preflights, CORS headers and error answers are the same on every adapter.
 */
export interface RouteTable {
  /** The normalized base path (`''` or `/api/verify`), in front of every route's path. */
  readonly basePath: string;
  /** In the order they are matched: the first route whose path matches takes the request. */
  readonly routes: readonly TableRoute[];
  /** The answer to a path no route takes: 404 naming `basePath` (decision 1512). */
  notFound(request: RouteRequest): RouteAnswer;
  /** The answer to an error no route answered (a hook throwing outside a route). */
  fail(error: unknown, request: RouteRequest): RouteAnswer;
}

/** What {@link routeTable} needs beside the routes. */
export interface RouteTableOptions {
  readonly basePath: string;
  /** CORS for the routes that allow it (and the 404 answer). */
  readonly cors: Cors;
  /** An error as an answer (a 5xx goes to the application's `onError` too). */
  readonly fail: (error: unknown, request: RouteRequest) => RouteAnswer;
}

const noCors = new Cors(undefined);

/** Builds the table from declared routes: each gets its preflight, its 405, its error answers and its CORS headers. */
export function routeTable(options: RouteTableOptions, declared: readonly RouteDeclaration[]): RouteTable {
  const { basePath, cors, fail } = options;
  return {
    basePath,
    routes: declared.map((route) => ({
      path: route.path,
      methods: route.methods,
      answer: answerOf(route, route.cors ? cors : noCors, fail),
    })),
    notFound: (request) => cors.answerWith(fail(notFoundError(basePath, declared, request), request), request),
    fail: (error, request) => cors.answerWith(fail(error, request), request),
  };
}

function answerOf(
  route: RouteDeclaration,
  cors: Cors,
  fail: (error: unknown, request: RouteRequest) => RouteAnswer,
): RouteWork {
  const { methods, work } = route;
  return async (request, id) => {
    if (request.method === 'OPTIONS') return cors.preflight(request, methods);
    let answer: RouteAnswer;
    try {
      if (!methods.includes(request.method)) throw new MethodNotAllowedError(methods);
      answer = await work(request, id);
    } catch (error) {
      answer = fail(error, request);
    }
    return cors.answerWith(answer, request);
  };
}

// A plain id (what a route's `:id` matches on Node's own path, decision 1510).
const plainId = '([A-Za-z0-9_-]{1,200})';

/** The pattern body of a route's path: its literal segments as they are, `:id` a plain id (group 1). */
function patternSource(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      if (segment === ':id') return plainId;
      if (segment.startsWith(':')) throw new Error(`a route's only parameter is :id (${path})`);
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
}

/** The pattern of a route's whole path (base path included); group 1 is its `:id`. */
export function routePattern(path: string): RegExp {
  return new RegExp(`^${patternSource(path)}$`);
}

/**
 * The 404, naming the fix when the path would match a route with another base path (issue 35): without the base
 * path (a server stripped its mount path: Express's `app.use('/api/verify', …)`), or below a longer one (the handler
 * is mounted below a path `basePath` does not name). The path itself is never echoed, only the configured base path.
 */
function notFoundError(basePath: string, routes: readonly RouteDeclaration[], request: RouteRequest): Error {
  let path: string;
  try {
    path = new URL(request.web.url).pathname;
  } catch {
    return new RouteNotFoundError();
  }
  const sources = routes.map((route) => patternSource(route.path));
  if (basePath !== '' && sources.some((source) => new RegExp(`^${source}/?$`).test(path))) {
    return new RouteNotFoundError(
      `no route matches this path, but one would below basePath '${basePath}', which this path lacks. A server that strips a mount path hides it from the handler: Express's app.use('${basePath}', handler) does. Mount the handler without a path and pass it the requests below basePath (docs/http.md#express), or set basePath to the path the handler receives`,
    );
  }
  if (sources.some((source) => new RegExp(`^/.+${source}/?$`).test(path))) {
    return new RouteNotFoundError(
      `no route matches this path, but one would below a longer basePath (it is '${basePath}'): set basePath to the path the handler is mounted at, e.g. createFlowHandler({ basePath: '/api/verify' }) for /api/verify/flows`,
    );
  }
  return new RouteNotFoundError();
}

/** The methods each route of the flow handler takes. */
export const routeMethods = {
  flows: ['POST'],
  flow: ['GET'],
  events: ['POST'],
  stream: ['GET'],
  proof: ['POST'],
  webhooks: ['POST'],
} as const satisfies Readonly<Record<string, readonly string[]>>;

/** Normalizes a base path: `''`, or `/` followed by segments with no trailing slash. */
export function normalizeBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}
