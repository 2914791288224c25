import type { IncomingMessage } from 'node:http';
import { InvalidInputError } from '@verikit/provider';
import { PayloadTooLargeError } from '../errors/payload-too-large-error.js';
import { UnsupportedMediaTypeError } from '../errors/unsupported-media-type-error.js';
import type { PreparedViewStream } from '../view-stream.js';

/**
 * What a route reads of a request (its method and headers here; its body through {@link readRouteBody} and
 * {@link readJsonBody} below), the same whether the request came as a Web `Request` (any Fetch runtime,
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

/** The client address in the server's bindings: `{ clientAddress }` (toHonoHandler) or `{ incoming }` (node). */
export function peerAddressOf(env: unknown): string | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const given = (env as { clientAddress?: unknown }).clientAddress;
  if (typeof given === 'string' && given !== '') return given;
  const address = (env as { incoming?: { socket?: { remoteAddress?: unknown } } }).incoming?.socket?.remoteAddress;
  return typeof address === 'string' && address !== '' ? address : undefined;
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

/** The body as sent, or why it could not be read. */
export type BodyResult =
  | { readonly ok: true; readonly body: string }
  | { readonly ok: false; readonly reason: 'too-large' | 'not-utf8' | 'unreadable' | 'already-read' };

/**
 * The one body reader of the HTTP layer: the flow routes read JSON through it, the webhook route the
 * signed bytes. Reads a request's body exactly as sent, stopping as soon as it passes `maxBytes` (checked on
 * `Content-Length` first, then on the bytes actually read, since the header may lie or be absent).
 *
 * The bytes must be UTF-8. They are decoded strictly and a leading byte-order mark is kept, so
 * encoding the string again gives back the very bytes that were signed.
 */
export async function readBody(request: Request, maxBytes: number): Promise<BodyResult> {
  if (declaredTooLarge(request.headers.get('content-length'), maxBytes)) return { ok: false, reason: 'too-large' };
  if (request.bodyUsed) return { ok: false, reason: 'already-read' };
  if (request.body === null) return { ok: true, body: '' };

  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: 'too-large' };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, reason: 'unreadable' };
  } finally {
    reader.releaseLock();
  }

  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return decoded(bytes);
}

/** Strict UTF-8, the byte-order mark kept (see {@link readBody}). */
function decoded(bytes: Uint8Array): BodyResult {
  try {
    return { ok: true, body: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { ok: false, reason: 'not-utf8' };
  }
}

const alreadyRead: BodyResult = { ok: false, reason: 'already-read' };

/** True when the request says it carries a body: a `Content-Length` above 0, or a `Transfer-Encoding`. */
function sentABody(incoming: IncomingMessage): boolean {
  const length = incoming.headers['content-length'];
  return incoming.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

/**
 * Why a body read before the handler is refused, and the fix. Its parsed form (`req.body`) is not taken: the
 * handler would lose its own cap and content-type check, and a webhook signature covers the bytes, not a parse.
 */
export const alreadyReadMessage =
  'was read before verikit could read it: a body parser (express.json(), body-parser) runs in front of the handler. Mount verikit before it, or give the parser only your own routes (docs/http.md#express)';

/** True when a declared `Content-Length` is over `maxBytes`. */
function declaredTooLarge(declared: string | null | undefined, maxBytes: number): boolean {
  return declared != null && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > maxBytes;
}

/**
 * {@link readBody} reading node's request itself, for handlers served by `toNodeHandler`: the same limits and
 * answers, without the Web `Request` and stream a read through @hono/node-server would build. Bytes past the limit
 * are left unread (the adapter drains or closes the connection once the answer is sent).
 */
function readNodeBody(incoming: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  if (declaredTooLarge(incoming.headers['content-length'], maxBytes))
    return Promise.resolve({ ok: false, reason: 'too-large' });
  // Read to its end before the handler ran, though a body was sent: a body parser in front (express.json()).
  if (incoming.readableEnded) return Promise.resolve(sentABody(incoming) ? alreadyRead : { ok: true, body: '' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const finish = (result: BodyResult): void => {
      incoming.off('data', onData).off('end', onEnd).off('error', onFailure).off('close', onFailure);
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        incoming.pause();
        finish({ ok: false, reason: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish(decoded(Buffer.concat(chunks, total)));
    const onFailure = (): void => finish({ ok: false, reason: 'unreadable' });
    incoming.on('data', onData).on('end', onEnd).on('error', onFailure).on('close', onFailure);
  });
}

/** {@link readBody} of a route's request: from node's request when there is one, else from the Web `Request`. */
export function readRouteBody(request: RouteRequest, maxBytes: number): Promise<BodyResult> {
  const { incoming } = request;
  return incoming === undefined ? readBody(request.web, maxBytes) : readNodeBody(incoming, maxBytes);
}

/** True for `application/json`, with no charset or a UTF-8 one. */
function isJsonContentType(header: string | null | undefined): boolean {
  if (header == null) return false;
  const [mediaType = '', ...parameters] = header.split(';');
  if (mediaType.trim().toLowerCase() !== 'application/json') return false;
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() !== 'charset') continue;
    const charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') return false;
  }
  return true;
}

const failedReadMessage = {
  'not-utf8': 'is not UTF-8',
  unreadable: 'could not be read',
  'already-read': alreadyReadMessage,
} as const;

/**
 * Reads a request body as JSON, never more than `maxBytes` of it: checks the content type (415),
 * then reads with a cap (413, on `Content-Length` first and then on the bytes actually read), then
 * parses (400 naming the field `body`). The body itself is never echoed in an error. Served by toNodeHandler, the
 * body is read from node's request, without the Web `Request` and stream.
 */
export async function readJsonBody(request: RouteRequest, maxBytes: number): Promise<unknown> {
  const { incoming } = request;
  if (!isJsonContentType(request.header('content-type'))) {
    if (incoming === undefined) await request.web.body?.cancel().catch(() => undefined);
    throw new UnsupportedMediaTypeError();
  }
  const read = await readRouteBody(request, maxBytes);
  if (!read.ok) {
    if (read.reason === 'too-large') {
      if (incoming === undefined) await request.web.body?.cancel().catch(() => undefined);
      throw new PayloadTooLargeError(maxBytes);
    }
    throw new InvalidInputError([{ field: 'body', message: failedReadMessage[read.reason] }]);
  }
  const text = read.body.startsWith('\uFEFF') ? read.body.slice(1) : read.body;
  if (text.trim() === '') throw new InvalidInputError([{ field: 'body', message: 'is required: send a JSON object' }]);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidInputError([{ field: 'body', message: 'is not valid JSON' }]);
  }
}
