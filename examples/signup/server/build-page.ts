import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

/** The page's sources: web/index.html and what it imports. */
const webDir = fileURLToPath(new URL('../web/', import.meta.url));

/** Where `pnpm start` puts the built page. */
const defaultPageDir = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * Builds the React page with Vite's JS API into `outDir`. The verikit packages are read from their
 * TypeScript sources (the `@verikit/source` export condition), as in the repository's tests, so
 * nothing needs building first; an app installing them from npm drops that condition. `entry` is
 * the HTML file in web/ to build (the tests build a page of their own there).
 */
export async function buildPage(outDir: string = defaultPageDir, entry = 'index.html'): Promise<string> {
  // Vite and the React plugin choose a production build from NODE_ENV alone, which a test runner
  // sets to `test`: production it is, for this build only, so the page tested is the page served.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await buildWithVite(outDir, entry);
    await inlineEntry(outDir, entry);
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return outDir;
}

async function buildWithVite(outDir: string, entry: string): Promise<void> {
  await build({
    root: webDir,
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    resolve: { conditions: ['@verikit/source', 'browser', 'module', 'import', 'default'] },
    build: { outDir, emptyOutDir: true, sourcemap: false, rollupOptions: { input: join(webDir, entry) } },
  });
}

/**
 * Puts the page's script and stylesheet into index.html (decision 0730): on a slow network each request
 * costs a round trip (2 s on the "Slow 3G" profile) before its first byte, so one compressed answer
 * shows the form seconds sooner than an HTML page that then asks for its script. The page is revalidated
 * by its ETag, so a repeat visit still costs a 304 and no body.
 */
async function inlineEntry(outDir: string, entry: string): Promise<void> {
  const indexPath = join(outDir, entry);
  let html = await readFile(indexPath, 'utf8');
  const asset = async (href: string) => readFile(join(outDir, href.replace(/^\//, '')), 'utf8');
  for (const [tag, href] of [...html.matchAll(/<script type="module" crossorigin src="([^"]+)"><\/script>/g)].map(
    (match) => [match[0], match[1]!] as const,
  )) {
    // "</script" in the code would end the element early; "<\/script" reads the same in JavaScript.
    const code = (await asset(href)).replace(/<\/script/gi, '<\\/script');
    html = html.replace(tag, () => `<script type="module">${code}</script>`);
  }
  for (const [tag, href] of [...html.matchAll(/<link rel="stylesheet" crossorigin href="([^"]+)">/g)].map(
    (match) => [match[0], match[1]!] as const,
  )) {
    const css = (await asset(href)).replace(/<\/style/gi, '<\\/style');
    html = html.replace(tag, () => `<style>${css}</style>`);
  }
  await writeFile(indexPath, html);
}
