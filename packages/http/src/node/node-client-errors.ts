import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { InvalidInputError, VerikitError } from '@verikit/provider';
import { errorAnswer, type ErrorResponseBody } from '../error-response.js';
import { httpStatusOf } from '../errors/http-status.js';

/** The reason phrase of each status this answers with. */
const reasons: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Makes node:http answer, as JSON, the requests its parser refuses before any request listener
 * runs (a method it does not know or in lower case, a malformed request line or header, headers
 * over `maxHeaderSize`, a request too slow to arrive) and `CONNECT` requests, which node hands to
 * a `connect` listener instead. Without it node answers those with a bare status and no body, or
 * closes the connection. It also turns off node's own bare 400 for an HTTP/1.1 request without
 * `Host` (`requireHostHeader`), so that the request reaches `toNodeHandler`, which refuses it
 * with a JSON 400 naming `host`. Returns the server.
 *
 * @example
 * answerClientErrors(createServer(toNodeHandler(handler))).listen(3000);
 */
export function answerClientErrors<S extends Server>(server: S): S {
  // A documented server option, read per request; @types/node 20 does not list it on Server.
  (server as S & { requireHostHeader: boolean }).requireHostHeader = false;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    answer(socket, clientErrorOf(error.code));
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    answer(socket, new InvalidInputError([{ field: 'method', message: 'CONNECT is not served: this is not a proxy' }]));
  });
  return server;
}

/** The typed error for a parser refusal, by node's error code; never echoing what was sent. */
function clientErrorOf(code: string | undefined): VerikitError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new VerikitError('headers_too_large', 'the request line and headers are larger than the server takes', {
        field: 'headers',
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return new VerikitError('request_timeout', 'the request did not arrive in time', { isRetryable: true });
    case 'HPE_INVALID_METHOD':
      return new InvalidInputError([
        { field: 'method', message: 'must be an HTTP method this server knows, in upper case' },
      ]);
    default:
      return new InvalidInputError([{ field: 'request', message: 'is not a well-formed HTTP/1.1 request' }]);
  }
}

function answer(socket: Duplex, error: VerikitError): void {
  const status = httpStatusOf(error);
  const body: ErrorResponseBody = errorAnswer(error).body;
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status] ?? 'Bad Request'}\r\n` +
      'content-type: application/json; charset=utf-8\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\nconnection: close\r\n' +
      `content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}
