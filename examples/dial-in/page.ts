import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/**
 * The built page as one answer (like the signup example's, decision 0730): Vite's script and stylesheet put into
 * index.html, compressed once with brotli and gzip. On a slow network each request costs a round trip (2 s on
 * Chrome's "Slow 3G" profile) before its first byte, so one compressed answer puts the form on screen seconds
 * sooner than a page that then asks for its script.
 */
export async function loadPage(outDir: string): Promise<(request: Request) => Response> {
  let html = await readFile(join(outDir, 'index.html'), 'utf8');
  const assets = join(outDir, 'assets');
  for (const name of await readdir(assets).catch(() => [])) {
    const text = await readFile(join(assets, name), 'utf8');
    if (name.endsWith('.js'))
      html = html.replace(
        new RegExp(`<script type="module" crossorigin src="/assets/${name.replace(/\W/g, '\\$&')}"></script>`),
        // "</script" in the code would end the element early; "<\/script" reads the same in JavaScript.
        () => `<script type="module">${text.replace(/<\/script/gi, '<\\/script')}</script>`,
      );
    else if (name.endsWith('.css'))
      html = html.replace(
        new RegExp(`<link rel="stylesheet" crossorigin href="/assets/${name.replace(/\W/g, '\\$&')}">`),
        () => `<style>${text.replace(/<\/style/gi, '<\\/style')}</style>`,
      );
  }
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
    return new Response(request.method === 'HEAD' ? null : encoding === undefined ? body : encoded[encoding], {
      headers,
    });
  };
}
