import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';

/** One built file, ready to answer with. */
interface PageFile {
  readonly body: Uint8Array;
  readonly type: string;
}

const types: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
};

/**
 * The built page, read into memory once: a handful of small files, so a request never touches the
 * file system and no path a browser sends can reach outside the build. `/` and unknown paths that
 * do not look like files answer with index.html (the page routes itself).
 */
export class PageFiles {
  readonly #files: ReadonlyMap<string, PageFile>;

  private constructor(files: ReadonlyMap<string, PageFile>) {
    this.#files = files;
  }

  /** Reads every file under `dir` (Vite's outDir). */
  static async load(dir: string): Promise<PageFiles> {
    const files = new Map<string, PageFile>();
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      const urlPath = `/${relative(dir, path).split(sep).join('/')}`;
      files.set(urlPath, { body: await readFile(path), type: types[extname(path)] ?? 'application/octet-stream' });
    }
    if (!files.has('/index.html')) throw new Error(`no index.html in ${dir}: build the page first`);
    return new PageFiles(files);
  }

  /** The answer to a GET or HEAD of `pathname`, or undefined for a missing asset. */
  answer(pathname: string, method: string): Response | undefined {
    const looksLikeFile = /\.[a-z0-9]+$/i.test(pathname);
    const file = this.#files.get(pathname) ?? (looksLikeFile ? undefined : this.#files.get('/index.html'));
    if (file === undefined) return undefined;
    // Vite puts a content hash in every asset name: those may be cached for good; the page may not.
    const cache = pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    const headers = { 'content-type': file.type, 'cache-control': cache, 'x-content-type-options': 'nosniff' };
    return new Response(method === 'HEAD' ? null : file.body, { headers });
  }
}
