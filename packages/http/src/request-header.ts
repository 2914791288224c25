import type { IncomingMessage } from 'node:http';
import { nodeRequestOf } from './routes/server-bindings.js';

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
