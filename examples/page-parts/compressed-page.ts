import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * A page served as one answer, compressed once (brotli at its best quality, and gzip at 9), so that on a slow
 * network the form is on screen after one round trip (2 s on Chrome's "Slow 3G" profile) and a few KB, like the
 * signup example's (decision 0730). The answer follows the request's `accept-encoding`; HEAD gets no body.
 */
export function compressedPage(html: string): (request: Request) => Response {
  const body = Buffer.from(html);
  const encoded = {
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    gzip: gzipSync(body, { level: 9 }),
  };
  return (request) => {
    const accepted = (request.headers.get('accept-encoding') ?? '').toLowerCase();
    const encoding = /\bbr\b/.test(accepted) ? 'br' : /\bgzip\b/.test(accepted) ? 'gzip' : undefined;
    const headers: Record<string, string> = {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
    };
    if (encoding !== undefined) headers['content-encoding'] = encoding;
    const answer = encoding === undefined ? body : encoded[encoding];
    return new Response(request.method === 'HEAD' ? null : answer, { headers });
  };
}
