import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** One built file, ready to answer with: as built, and compressed when that makes it smaller. */
interface PageFile {
  readonly body: Uint8Array;
  readonly br: Uint8Array | undefined;
  readonly gzip: Uint8Array | undefined;
  readonly type: string;
  readonly etag: string;
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
const compressible = new Set(['.html', '.js', '.css', '.svg', '.json']);

/** The smaller of `compressed` and nothing: a compressed body that saves nothing is not worth a header. */
function smaller(body: Uint8Array, compressed: Uint8Array): Uint8Array | undefined {
  return compressed.length < body.length ? compressed : undefined;
}

/** What the browser accepts, best first: brotli, then gzip (a `q=0` refuses). */
function acceptedEncodings(header: string | null): Set<string> {
  const accepted = new Set<string>();
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param))) continue;
    if (name !== undefined && name !== '') accepted.add(name.trim());
  }
  return accepted;
}

/**
 * The built page, read and compressed into memory once (brotli at its best quality, gzip at 9): a
 * handful of small files, so a request never touches the file system or compresses anything, and no
 * path a browser sends can reach outside the build. `/` and unknown paths that do not look like files
 * answer with index.html (the page routes itself). Every answer has an ETag; a matching `If-None-Match`
 * gets 304.
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
      const body = await readFile(path);
      const squeeze = compressible.has(extname(path));
      files.set(urlPath, {
        body,
        br: squeeze
          ? smaller(body, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }))
          : undefined,
        gzip: squeeze ? smaller(body, gzipSync(body, { level: 9 })) : undefined,
        type: types[extname(path)] ?? 'application/octet-stream',
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      });
    }
    if (!files.has('/index.html')) throw new Error(`no index.html in ${dir}: build the page first`);
    return new PageFiles(files);
  }

  /** The answer to a GET or HEAD of `pathname` (brotli or gzip as `accept-encoding` allows), or undefined for a missing asset. */
  answer(pathname: string, method: string, requestHeaders: Headers = new Headers()): Response | undefined {
    const looksLikeFile = /\.[a-z0-9]+$/i.test(pathname);
    const file = this.#files.get(pathname) ?? (looksLikeFile ? undefined : this.#files.get('/index.html'));
    if (file === undefined) return undefined;
    // Vite puts a content hash in every asset name: those may be cached for good; the page is revalidated (its ETag).
    const cache = pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    const headers: Record<string, string> = {
      'content-type': file.type,
      'cache-control': cache,
      etag: file.etag,
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
    };
    const known = requestHeaders.get('if-none-match');
    if (known?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === file.etag) === true)
      return new Response(null, { status: 304, headers });
    const accepted = acceptedEncodings(requestHeaders.get('accept-encoding'));
    const [encoding, body] =
      file.br !== undefined && accepted.has('br')
        ? ['br', file.br]
        : file.gzip !== undefined && accepted.has('gzip')
          ? ['gzip', file.gzip]
          : [undefined, file.body];
    if (encoding !== undefined) headers['content-encoding'] = encoding;
    headers['content-length'] = String(body.length);
    return new Response(method === 'HEAD' ? null : body, { headers });
  }
}
