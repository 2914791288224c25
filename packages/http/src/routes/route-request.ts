import type { IncomingMessage } from 'node:http';
import { headersOf, requestHeader } from '../request-header.js';
import type { PreparedViewStream } from '../view-stream.js';
import { nodeRequestOf } from './server-bindings.js';

/**
 * What a flow route reads of a request, the same whether the request came as a Web `Request` (any Fetch runtime,
 * or node:http through @hono/node-server) or straight from node:http (the Node adapter's own path, decision 1510): the routes are written once against this.
 */
export interface RouteRequest {
  readonly method: string;
  /** A header's value (`name` in lower case); undefined when absent. */
  header(name: string): string | undefined;
  /** Every header, names in lower case, a repeated one joined with ", " (what the webhook route verifies). */
  headers(): Record<string, string>;
  /** Node's request when served by toNodeHandler: bodies are read from it, event streams written to its response. */
  readonly incoming: IncomingMessage | undefined;
  /** The server's bindings, where the client address is (`{ incoming }`, `{ clientAddress }`). */
  readonly env: unknown;
  /** The request as a Web `Request`, for the application's hooks (`authorize`, `clientKey`, `onError`). */
  readonly web: Request;
}

/** A route's answer before it is a `Response` or is written to node's: JSON text, a Web stream, or an event stream. */
export interface RouteAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | ReadableStream<Uint8Array>;
  /** An event stream that toNodeHandler writes to node's response itself (decision 0511). */
  readonly stream?: PreparedViewStream;
}

/** Headers on every JSON answer: views may carry a USSD OTP, so nothing is cached. */
const jsonHeaders: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A JSON answer with the handler's standard headers. */
export function jsonAnswer(body: unknown, status = 200, headers?: Readonly<Record<string, string>>): RouteAnswer {
  return {
    status,
    headers: headers === undefined ? jsonHeaders : { ...jsonHeaders, ...headers },
    body: JSON.stringify(body),
  };
}

/** A Web request as a {@link RouteRequest}; `env` is the server's bindings (node's request under toNodeHandler). */
export function webRouteRequest(request: Request, env: unknown): RouteRequest {
  const incoming = nodeRequestOf(env);
  return {
    method: request.method,
    // Under toNodeHandler, from node's request: reading the `Request`'s would build a `Headers` (decision 1330).
    header: (name) => requestHeader(request, env, name),
    headers: () => headersOf(incoming ?? request.headers),
    incoming,
    env,
    web: request,
  };
}
