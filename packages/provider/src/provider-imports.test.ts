import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A provider package depends on @verikit/provider alone, so this package must stay small: importing it may load
// zod and libphonenumber-js, and never the engine's, the HTTP layer's or a provider's dependencies.
const allowedPackages = ['libphonenumber-js', 'zod'];
const forbiddenPackages = [
  'xstate',
  'keyv',
  '@keyv/redis',
  'redis',
  'standardwebhooks',
  'hono',
  '@hono/node-server',
  'ky',
];

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const sourceRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * A resolve hook that appends every URL it resolves to a file. It writes synchronously, so each line is on disk
 * before the import that needed it completes.
 */
const recorderHooks = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(file, result.url + '\\n');
  return result;
}
`;

/** Imports @verikit/provider by name in a fresh node (source condition, tsx) and returns every URL it loaded. */
async function urlsLoadedByImportingProvider(file: string): Promise<string[]> {
  const child = `
    import { register, createRequire } from 'node:module';
    import { appendFileSync } from 'node:fs';
    import { pathToFileURL } from 'node:url';
    const file = ${JSON.stringify(file)};
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(recorderHooks)}), { data: { file } });
    // CommonJS modules required from CommonJS do not pass the ESM hooks; the require cache lists them
    // (less what tsx itself loaded before the import).
    const cache = createRequire(import.meta.url).cache;
    const before = new Set(Object.keys(cache));
    await import('@verikit/provider');
    const cjs = Object.keys(cache).filter((path) => !before.has(path));
    appendFileSync(file, cjs.map((path) => pathToFileURL(path).href + '\\n').join(''));
  `;
  await promisify(execFile)(
    process.execPath,
    ['--conditions=@verikit/source', '--import', 'tsx', '--input-type=module', '--eval', child],
    {
      cwd: packageRoot,
    },
  );
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** The npm package a module URL belongs to (after the last node_modules/), or undefined for other files. */
function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('/node_modules/');
  if (at === -1) return undefined;
  const [first, second] = url.slice(at + '/node_modules/'.length).split('/');
  return first?.startsWith('@') ? `${first}/${second}` : first;
}

describe('@verikit/provider imports', () => {
  let directory: string;
  let urls: string[];

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'verikit-provider-imports-'));
    urls = await urlsLoadedByImportingProvider(join(directory, 'urls.txt'));
  });
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('loads the provider source itself (the recording works)', () => {
    expect(urls).toContain(pathToFileURL(join(sourceRoot, 'index.ts')).href);
    expect(urls.map(packageOf)).toContain('zod');
  });

  it('loads none of the engine, HTTP or provider dependencies', () => {
    const loaded = new Set(urls.map(packageOf).filter((name) => name !== undefined));
    expect(forbiddenPackages.filter((name) => loaded.has(name))).toEqual([]);
    expect([...loaded].filter((name) => !allowedPackages.includes(name)).sort()).toEqual([]);
  });

  it('loads no other workspace package', () => {
    const ownFiles = urls.filter((url) => url.startsWith('file:') && packageOf(url) === undefined);
    expect(ownFiles.filter((url) => !url.startsWith(pathToFileURL(sourceRoot).href))).toEqual([]);
  });

  it('declares only zod and libphonenumber-js as dependencies', () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
    const declared = ['dependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) =>
      Object.keys((manifest[field] as Record<string, string> | undefined) ?? {}),
    );
    expect(declared.filter((name) => !allowedPackages.includes(name))).toEqual([]);
  });
});
