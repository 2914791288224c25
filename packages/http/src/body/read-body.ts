import type { IncomingMessage } from 'node:http';
import type { RouteRequest } from '../routes/route-request.js';
import { InvalidInputError } from '@verikit/provider';
import { PayloadTooLargeError } from '../errors/payload-too-large-error.js';
import { UnsupportedMediaTypeError } from '../errors/unsupported-media-type-error.js';

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
