import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener, RequestError } from '@hono/node-server';
import { InvalidInputError } from '@verikit/provider';
import { errorResponse, internalErrorResponse } from '../error-response.js';
import type { FlowHandler } from '../flow-handler-options.js';
import {
  headerOf,
  headersOf,
  markWritesEventStreams,
  preparedStreamOf,
  type RouteAnswer,
  type RouteRequest,
} from '../routes/route-request.js';
import { routePattern, type RouteTable, type TableRoute } from '../routes/route-table.js';
import { writeEventStream, writePreparedStream } from './node-event-stream.js';

/** A node:http request listener. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /** Called when the handler throws (it should not: the flow handler answers every error itself). */
  onError?: (error: unknown) => void;
  /**
   * Lets @hono/node-server put its lightweight `Request` and `Response` in place of the global ones
   * (its default, and what makes a JSON answer cheap: the string is written as it is, without a
   * stream). They are subclasses of the real ones; only `instanceof Response` on a response from
   * `fetch` sees the difference. Default `true`.
   */
  overrideGlobalObjects?: boolean;
}

/**
 * Serves a Web-standard `(Request) => Promise<Response>` handler with node:http (or an Express or
 * Connect app, as a last middleware), through @hono/node-server's request listener:
 * - the request is a `Request` built lazily from node's (the body streams from the socket only
 *   when read; `signal` aborts when the client disconnects);
 * - a string body goes out in one write with a `Content-Length`, a stream chunk by chunk as it is
 *   written, and is cancelled when the client goes away;
 * - the flow handler's event streams skip the Web stream: the handler runs every check and answers with
 *   the stream's head, and this adapter writes the events straight to node's response (decision 0511).
 *   A handler that wraps the flow handler must pass its `Response` on as it is;
 * - a body the handler did not read (too large, refused) is drained after the answer, so the client
 *   receives it and the connection stays usable;
 * - a handler made by `createFlowHandler` (not one wrapping it) carries its route table (`routes`): its routes are
 *   answered straight on node's request and response, without a `Request`, a `Response` or Hono, by the same route
 *   functions (decision 1510); a path no route takes, and unusual paths or hosts, take the way above.
 *
 * A request node can parse but not turn into a URL (no `Host`, a malformed one, a backslash in the
 * path) is a JSON 400 `invalid_input`; a handler that throws is a generic JSON 500.
 *
 * @example
 * import { createServer } from 'node:http';
 * createServer(toNodeHandler(createFlowHandler({ verikit }))).listen(3000);
 */
export function toNodeHandler(
  handler: FlowHandler | ((request: Request, env?: unknown) => Promise<Response>),
  options: NodeHandlerOptions = {},
): NodeHandler {
  // The bindings (`{ incoming, outgoing }`) go to the handler: the flow handler reads the client address there,
  // and answers an event stream with a prepared stream this adapter writes to `outgoing` itself (decision 0511).
  const listener = getRequestListener(
    async (request, env) => {
      markWritesEventStreams(env);
      const response = await handler(request, env);
      const prepared = preparedStreamOf(response);
      if (prepared === undefined) return response;
      // toNodeHandler serves node:http (its `NodeHandler` type): the response is a `ServerResponse`.
      writeEventStream(response, prepared, env.outgoing as ServerResponse);
      return alreadySent();
    },
    {
      overrideGlobalObjects: options.overrideGlobalObjects ?? true,
      errorHandler: (error) => {
        if (error instanceof RequestError) return errorResponse(requestErrorOf(error));
        report(options, error);
        return internalErrorResponse();
      },
    },
  );
  // The flow handler's routes, answered straight on node's request and response (decision 1510).
  const routes = 'routes' in handler ? nodeRoutes(handler.routes) : undefined;
  return (req, res) => {
    if (routes?.(req, res) === true) return;
    // @hono/node-server reads no body of a GET or HEAD. One listener for every response, not a closure each: an
    // open event stream keeps its listeners for its life (decision 1330).
    if (req.method !== 'GET' && req.method !== 'HEAD') res.on('finish', releaseBody);
    void listener(req, res);
  };
}

/**
 * The answer that tells @hono/node-server the response was written already (its `x-hono-already-sent`). One for all:
 * @hono/node-server keeps the answer for the life of the connection, and only reads it.
 */
let sent: Response | undefined;

function alreadySent(): Response {
  sent ??= new Response(null, { headers: { 'x-hono-already-sent': '1' } });
  return sent;
}

/** The typed error for a request that has no usable URL, naming the part at fault and never echoing it. */
function requestErrorOf(error: RequestError): InvalidInputError {
  // @hono/node-server names the request target's faults (a backslash, a bad absolute URL); every
  // other failure to build the URL comes from the Host header (missing, or no host name).
  return /backslash|absolute|scheme/i.test(error.message)
    ? new InvalidInputError([{ field: 'url', message: 'must be a path, or an absolute http(s) URL' }])
    : new InvalidInputError([{ field: 'host', message: 'must be a host name, with an optional port' }]);
}

/**
 * Once the answer is sent, detaches the Web stream that read part of a body the handler then
 * refused (too large): left attached, it pauses the socket when its queue fills, and
 * @hono/node-server's drain of the rest stalls until it gives up and closes the connection.
 */
function releaseBody(this: ServerResponse): void {
  const { req } = this;
  if (!req.readableEnded && !req.destroyed) req.removeAllListeners('data');
}

function report(options: NodeHandlerOptions, error: unknown): void {
  try {
    options.onError?.(error);
  } catch {
    // A failing logger must not take the server down.
  }
}

/**
 * Serves a request straight on node:http when a route of the table takes its path in its plain form, and says
 * whether it did; `false` leaves the request untouched for the Web path (decisions 1320, 1510).
 */
export type NodeRoutes = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

// Only what is read exactly as Hono reads it: paths without percent-escapes (routePattern's ids are plain), a plain
// host.
const plainHost = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
// What @hono/node-server's drain of an unread body allows (decision 0403): then the connection is closed.
const drainMs = 500;
const drainBytes = 64 * 1024 * 1024;

/** A table route with the pattern of its whole path (base path included); group 1 is its `:id`. */
interface NodeRoute {
  readonly route: TableRoute;
  readonly pattern: RegExp;
}

/**
 * The Node adapter of a route table: a request whose path a table route takes in its plain form (no
 * percent-escape, no trailing slash, a plain `Host`, HTTP/1) is answered by that route's `answer`, read from node's
 * request and written to node's response without a `Request`, a `Response` or Hono: the one route matcher it passes.
 * Every other request (a path no route takes, an unusual path or host) goes to the Web path, which answers it as
 * it always has.
 */
export function nodeRoutes(table: RouteTable): NodeRoutes {
  const routes: NodeRoute[] = table.routes.map((route) => ({
    route,
    pattern: routePattern(`${table.basePath}${route.path}`),
  }));
  return (incoming, outgoing) => {
    if (incoming.httpVersionMajor !== 1 || !plainHost.test(incoming.headers.host ?? '')) return false;
    const url = incoming.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (path.includes('%')) return false;
    for (const { route, pattern } of routes) {
      const match = pattern.exec(path);
      if (match === null) continue;
      const request = new NodeRouteRequest(incoming, outgoing);
      // One listener for every response, not a closure each: an open event stream keeps its listeners (1330).
      if (request.method !== 'GET' && request.method !== 'HEAD') outgoing.on('finish', drainUnread);
      void route
        .answer(request, match[1])
        .then((answer) => writeAnswer(outgoing, answer))
        // Only a write that throws gets here (`answer` answers every error): the connection goes.
        .catch(() => outgoing.destroy());
      return true;
    }
    return false;
  };
}

/** Node's request as a {@link RouteRequest}; its Web `Request` is built only if a hook asks for it. */
class NodeRouteRequest implements RouteRequest {
  readonly method: string;
  readonly env: { incoming: IncomingMessage; outgoing: ServerResponse };
  #web: Request | undefined;

  constructor(
    readonly incoming: IncomingMessage,
    outgoing: ServerResponse,
  ) {
    this.method = incoming.method ?? 'GET';
    this.env = { incoming, outgoing };
    markWritesEventStreams(this.env);
  }

  header(name: string): string | undefined {
    return headerOf(this.incoming, name);
  }

  headers(): Record<string, string> {
    return headersOf(this.incoming);
  }

  get web(): Request {
    this.#web ??= webRequestOf(this.incoming);
    return this.#web;
  }
}

/**
 * The Web `Request` the hooks get on the fast path: method, URL and headers as sent. Its body is empty: the route
 * reads node's request itself, as it does under toNodeHandler's Web path.
 */
function webRequestOf(incoming: IncomingMessage): Request {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) headers.append(raw[index]!, raw[index + 1]!);
  return new Request(`http://${incoming.headers.host}${incoming.url}`, { method: incoming.method, headers });
}

/** Writes an answer to node's response: JSON in one write with its length, or the event stream. */
function writeAnswer(outgoing: ServerResponse, answer: RouteAnswer): void {
  const headers: Record<string, string | number> = { ...answer.headers };
  if (answer.stream !== undefined) {
    writePreparedStream(answer.status, headers as Record<string, string>, answer.stream, outgoing);
    return;
  }
  const body = typeof answer.body === 'string' ? answer.body : undefined;
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  outgoing.writeHead(answer.status, headers);
  outgoing.end(body);
}

/**
 * After the answer, the rest of a body the route did not read to its end (too large) is read and dropped, so that
 * the client receives the answer and the connection stays usable; past `drainMs` or `drainBytes` it is closed.
 * (Node drops a body nobody started to read by itself, and the GET routes read none.)
 */
function drainUnread(this: ServerResponse): void {
  const incoming = this.req;
  if (incoming.readableEnded || incoming.destroyed) return;
  incoming.removeAllListeners('data');
  let bytes = 0;
  const close = () => {
    clearTimeout(timer);
    incoming.socket?.destroySoon();
  };
  const timer = setTimeout(close, drainMs);
  timer.unref();
  incoming.on('data', (chunk: Buffer) => {
    bytes += chunk.byteLength;
    if (bytes > drainBytes) close();
  });
  incoming.once('end', () => clearTimeout(timer));
  incoming.resume();
}
