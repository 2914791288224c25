import type { IncomingMessage } from 'node:http';
import type { PreparedViewStream } from '../view-stream.js';

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

/** A route's answer as a `Response` (an event stream for toNodeHandler rides on it, decision 0511). */
export function responseOf(answer: RouteAnswer): Response {
  // A headers object of its own: @hono/node-server's lightweight `Response` adds `Content-Length` to the one given.
  const response = new Response(answer.body ?? null, { status: answer.status, headers: { ...answer.headers } });
  return answer.stream === undefined ? response : withPreparedStream(response, answer.stream);
}

/** A JSON response with the handler's standard headers. */
export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return responseOf(jsonAnswer(body, status, headers));
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

/**
 * A request header, or undefined when absent. Served by `toNodeHandler`, it is read from node's request: the first
 * read of a @hono/node-server `Request`'s headers builds a `Headers` (a map and an object per header, about 500
 * bytes) that the adapter keeps for the life of the connection, which for an event stream is hours (decision 1330).
 * `name` is lower case.
 */
function requestHeader(request: Request, env: unknown, name: string): string | undefined {
  const incoming = nodeRequestOf(env);
  return incoming === undefined ? (request.headers.get(name) ?? undefined) : headerOf(incoming, name);
}

/**
 * One header of node's request, as a Web `Headers` gives it: node joins a repeated header with ", " as
 * `Headers.get` does (it keeps the first of a few, such as `Host`, none of which this package reads this way), and
 * a value node keeps as a list is joined so. `name` is lower case.
 */
export function headerOf(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return typeof value === 'string' || value === undefined ? value : value.join(', ');
}

/**
 * Every header of a request, names in lower case, a repeated one joined with ", ": from a Web `Headers`, or from
 * node's raw headers, which keep every repeat as a `Headers` built from them would (node's parsed `headers` drop the
 * repeats of a few names).
 */
export function headersOf(source: Headers | IncomingMessage): Record<string, string> {
  const record: Record<string, string> = {};
  if (source instanceof Headers) {
    source.forEach((value, name) => {
      record[name.toLowerCase()] = value;
    });
    return record;
  }
  const raw = source.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index]!.toLowerCase();
    const value = raw[index + 1]!;
    // `Object.hasOwn`: a header named `constructor` must not find Object's.
    record[name] = Object.hasOwn(record, name) ? `${record[name]}, ${value}` : value;
  }
  return record;
}

/**
 * On Node, event streams skip the Web `ReadableStream` (decision 0511): the flow handler decides everything (route,
 * authorization, the stream's checks, headers such as CORS), and hands `toNodeHandler` an answer without a body that
 * carries the prepared stream; the adapter writes the head and the events straight to node's response. The handler
 * does so only when the bindings it was called with say the adapter can (`toNodeHandler` marks them): on every other
 * server it answers with a `ReadableStream` as before.
 */
const writesStreams = Symbol('verikit.writesEventStreams');
const preparedStreams = new WeakMap<Response, PreparedViewStream>();

/** Marks the bindings (`{ incoming, outgoing }`) that `toNodeHandler` passes: answers may carry a prepared stream. */
export function markWritesEventStreams(bindings: object): void {
  (bindings as { [writesStreams]?: true })[writesStreams] = true;
}

/** True when the handler was called by `toNodeHandler`, which writes prepared streams itself. */
function writesEventStreams(env: unknown): boolean {
  return typeof env === 'object' && env !== null && (env as { [writesStreams]?: true })[writesStreams] === true;
}

/** Node's request, when the handler was called by `toNodeHandler` (which reads bodies from it directly). */
function nodeRequestOf(env: unknown): IncomingMessage | undefined {
  return writesEventStreams(env) ? (env as { incoming: IncomingMessage }).incoming : undefined;
}

/** `response` (status and headers, no body) carrying `prepared`, for `toNodeHandler` to write. */
function withPreparedStream(response: Response, prepared: PreparedViewStream): Response {
  preparedStreams.set(response, prepared);
  return response;
}

/** The prepared stream an answer carries, if any. */
export function preparedStreamOf(response: Response): PreparedViewStream | undefined {
  return preparedStreams.get(response);
}
