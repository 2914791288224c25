import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PreparedViewStream } from './view-stream.js';

/**
 * On Node, event streams skip the Web `ReadableStream` (decision 0511): the flow handler decides everything (route,
 * authorization, the stream's checks, headers such as CORS), and hands {@link toNodeHandler} an answer without a
 * body that carries the prepared stream; the adapter writes the head and the events straight to node's response.
 * The handler does so only when the bindings it was called with say the adapter can (`toNodeHandler` marks them):
 * on every other server it answers with a `ReadableStream` as before.
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

/** The stream each open response writes, for the one `close` listener they share. */
const openStreams = new WeakMap<ServerResponse, PreparedViewStream>();

/** Stops the stream of a response whose connection closed (it leaves its channel and gives its slot back). */
function stopOnClose(this: ServerResponse): void {
  openStreams.get(this)?.stop();
}

/**
 * Writes the answer's head, then the stream's events as they come, to node's response; stops the stream when the
 * connection closes. The bytes go out as written, like a bare node:http SSE server's: no Web stream, no reader loop,
 * nothing kept per event, and no closure per stream: the response is the stream's sink, and every response shares
 * one `close` listener (decision 1330).
 */
export function writeEventStream(response: Response, prepared: PreparedViewStream, outgoing: ServerResponse): void {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  writePreparedStream(response.status, headers, prepared, outgoing);
}

/** {@link writeEventStream} from a status and headers (Node's fast path of the flow routes, decision 1320). */
export function writePreparedStream(
  status: number,
  headers: Readonly<Record<string, string>>,
  prepared: PreparedViewStream,
  outgoing: ServerResponse,
): void {
  outgoing.writeHead(status, headers);
  prepared.start(outgoing);
  if (outgoing.destroyed) {
    prepared.stop();
    return;
  }
  openStreams.set(outgoing, prepared);
  outgoing.on('close', stopOnClose);
}
