import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadedModules } from '../../../scripts/loaded-modules.js';

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

/** Imports @verikit/provider by name in a fresh node (source condition, tsx) and returns every URL it loaded. */
async function urlsLoadedByImportingProvider(): Promise<string[]> {
  const lines = await loadedModules(packageRoot, `await import('@verikit/provider'); mark('imported');`);
  return lines.filter((line) => line !== 'imported');
}

/** The npm package a module URL belongs to (after the last node_modules/), or undefined for other files. */
function packageOf(url: string): string | undefined {
  const at = url.lastIndexOf('/node_modules/');
  if (at === -1) return undefined;
  const [first, second] = url.slice(at + '/node_modules/'.length).split('/');
  return first?.startsWith('@') ? `${first}/${second}` : first;
}

describe('@verikit/provider imports', () => {
  let urls: string[];

  beforeAll(async () => {
    urls = await urlsLoadedByImportingProvider();
  });

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
