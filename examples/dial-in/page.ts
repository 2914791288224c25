import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compressedPage } from '@verikit/example-page-parts/compressed-page';

/**
 * The built page as one answer (like the signup example's, decision 0730): Vite's script and stylesheet put into
 * index.html, compressed once with brotli and gzip (`compressedPage`). On a slow network each request costs a round trip (2 s on
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
  return compressedPage(html);
}
