import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  headerOf,
  headersOf,
  markWritesEventStreams,
  type RouteAnswer,
  type RouteRequest,
} from '../routes/route-request.js';
import { routePattern, type RouteTable, type TableRoute } from '../routes/route-table.js';
import { writePreparedStream } from './node-event-stream.js';

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
