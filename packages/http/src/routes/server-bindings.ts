import type { IncomingMessage } from 'node:http';
import type { PreparedViewStream } from '../view-stream.js';

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
export function nodeRequestOf(env: unknown): IncomingMessage | undefined {
  return writesEventStreams(env) ? (env as { incoming: IncomingMessage }).incoming : undefined;
}

/** `response` (status and headers, no body) carrying `prepared`, for `toNodeHandler` to write. */
export function withPreparedStream(response: Response, prepared: PreparedViewStream): Response {
  preparedStreams.set(response, prepared);
  return response;
}

/** The prepared stream an answer carries, if any. */
export function preparedStreamOf(response: Response): PreparedViewStream | undefined {
  return preparedStreams.get(response);
}
