import type { IncomingMessage } from 'node:http';
import { nodeRequestOf } from './node-event-stream.js';

/**
 * A request header, or undefined when absent. Served by `toNodeHandler`, it is read from node's request: the first
 * read of a @hono/node-server `Request`'s headers builds a `Headers` (a map and an object per header, about 500
 * bytes) that the adapter keeps for the life of the connection, which for an event stream is hours (decision 1330).
 * `name` is lower case.
 */
export function requestHeader(request: Request, env: unknown, name: string): string | undefined {
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
