import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FlowRoute } from './flow-routes.js';
import { markWritesEventStreams, writePreparedStream } from './node-event-stream.js';
import { headerOf } from './request-header.js';
import type { RouteAnswer, RouteRequest } from './route-request.js';

/**
 * Serves a request straight on node:http when it is one of the flow routes in its plain form, and says whether it
 * did; `false` leaves the request untouched for the Web path (decision 1320).
 */
export type NodeFlowRoutes = (incoming: IncomingMessage, outgoing: ServerResponse) => boolean;

/** Where the flow handler keeps its {@link NodeFlowRoutes}, for toNodeHandler to find. */
const nodeRoutesKey = Symbol('verikit.nodeFlowRoutes');

/** The route a path names, with the methods it takes; `:id` is the path segment, not yet validated. */
export interface NodeRouteTable {
  /** `basePath` + `/flows`. */
  readonly prefix: string;
  readonly start: NodeRoute;
  readonly read: NodeRoute;
  readonly events: NodeRoute;
  readonly stream: NodeRoute;
  readonly proof: NodeRoute;
}

/** A route's work and its methods. */
interface NodeRoute {
  readonly run: FlowRoute;
  readonly methods: readonly string[];
}

// The fast path takes only what it reads exactly as Hono does: ids without percent-escapes, a plain host.
const plainId = /^[A-Za-z0-9_-]{1,200}$/;
const plainHost = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
// What @hono/node-server's drain of an unread body allows (decision 0403): then the connection is closed.
const drainMs = 500;
const drainBytes = 64 * 1024 * 1024;

/** The route of `incoming`'s path and method, or undefined when the Web path must answer it. */
function routeOf(table: NodeRouteTable, incoming: IncomingMessage): { route: NodeRoute; id?: string } | undefined {
  const url = incoming.url ?? '';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.startsWith(table.prefix)) return undefined;
  const rest = path.slice(table.prefix.length);
  const method = incoming.method ?? '';
  if (rest === '') return table.start.methods.includes(method) ? { route: table.start } : undefined;
  if (rest[0] !== '/') return undefined;
  const slash = rest.indexOf('/', 1);
  const id = slash === -1 ? rest.slice(1) : rest.slice(1, slash);
  const route = slash === -1 ? table.read : tailRoute(table, rest.slice(slash + 1));
  return route?.methods.includes(method) && plainId.test(id) ? { route, id } : undefined;
}

/** The route below `/flows/:id/` that a last segment names (a switch: a path must not reach `Object`'s keys). */
function tailRoute(table: NodeRouteTable, tail: string): NodeRoute | undefined {
  switch (tail) {
    case 'events':
      return table.events;
    case 'stream':
      return table.stream;
    case 'proof':
      return table.proof;
    default:
      return undefined;
  }
}

/**
 * The flow routes on node:http: a request for a flow route in its plain form (its method, a plain id, a plain
 * `Host`, HTTP/1) is answered here, by the same route functions and error answers as the Web path, read from node's
 * request and written to node's response without a `Request`, a `Response` or Hono's routing. `answer` runs a route
 * and answers its errors; `headersFor` adds the CORS headers. Everything else (preflights, 405s, the webhook route,
 * unusual paths and hosts) goes to the Web path, which answers it as it always has.
 */
export function nodeFlowRoutes(
  table: NodeRouteTable,
  answer: (route: FlowRoute, request: RouteRequest, id: string | undefined) => Promise<RouteAnswer>,
  headersFor: ((request: RouteRequest) => Record<string, string>) | undefined,
): NodeFlowRoutes {
  return (incoming, outgoing) => {
    if (incoming.httpVersionMajor !== 1 || !plainHost.test(incoming.headers.host ?? '')) return false;
    const found = routeOf(table, incoming);
    if (found === undefined) return false;
    const request = new NodeRouteRequest(incoming, outgoing);
    // One listener for every response, not a closure each: an open event stream keeps its listeners (decision 1330).
    if (request.method !== 'GET') outgoing.on('finish', drainUnread);
    void answer(found.route.run, request, found.id)
      .then((result) => writeAnswer(outgoing, result, headersFor?.(request)))
      // Only a write that throws gets here (the answers of every error are `answer`'s): the connection goes.
      .catch(() => outgoing.destroy());
    return true;
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
function writeAnswer(outgoing: ServerResponse, answer: RouteAnswer, cors: Record<string, string> | undefined): void {
  const headers: Record<string, string | number> =
    cors === undefined ? { ...answer.headers } : { ...answer.headers, ...cors };
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

/** Gives `handler` its node routes, for toNodeHandler. */
export function withNodeFlowRoutes<T extends object>(handler: T, routes: NodeFlowRoutes): T {
  Object.defineProperty(handler, nodeRoutesKey, { value: routes });
  return handler;
}

/** The node routes of a handler made by createFlowHandler; undefined for any other handler (or one wrapping it). */
export function nodeFlowRoutesOf(handler: object): NodeFlowRoutes | undefined {
  return (handler as { [nodeRoutesKey]?: NodeFlowRoutes })[nodeRoutesKey];
}
