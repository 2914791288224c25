import type { ServerResponse } from 'node:http';
import type { PreparedViewStream } from '../view-stream.js';

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
