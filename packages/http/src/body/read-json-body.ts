import { InvalidInputError } from '@verikit/provider';
import { PayloadTooLargeError } from '../errors/payload-too-large-error.js';
import { UnsupportedMediaTypeError } from '../errors/unsupported-media-type-error.js';
import type { RouteRequest } from '../routes/route-request.js';
import { alreadyReadMessage, readRouteBody } from './read-body.js';

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
