import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The published JavaScript of @verikit/provider, @verikit/core and @verikit/http is bundled (decisions 1360, 1720): the bundle must offer
// what the source entries offer, and share one copy of each module between a package's entries.
const root = fileURLToPath(new URL('..', import.meta.url));
const packages = ['core', 'provider', 'http'] as const;
const entries = { core: ['index', 'internal', 'opentelemetry'], provider: ['index'], http: ['index'] } as const;
const sources: Record<string, () => Promise<Record<string, unknown>>> = {
  'core/index': () => import('@verikit/core'),
  'core/internal': () => import('@verikit/core/internal'),
  'core/opentelemetry': () => import('@verikit/core/opentelemetry'),
  'provider/index': () => import('@verikit/provider'),
  'http/index': () => import('@verikit/http'),
};

function filesIn(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)))
    .sort();
}

describe('bundle-dist', () => {
  const outdirs = new Map<string, string>();

  beforeAll(async () => {
    for (const name of packages) {
      const directory = join(root, 'packages', name);
      // Inside the package, so that the bundle's imports of its dependencies resolve as they do from dist/.
      const outdir = mkdtempSync(join(directory, '.bundle-test-'));
      outdirs.set(name, outdir);
      await promisify(execFile)(process.execPath, ['--import', 'tsx', join(root, 'scripts/bundle-dist.ts'), outdir], {
        cwd: directory,
      });
    }
  }, 60_000);

  afterAll(() => {
    for (const outdir of outdirs.values()) rmSync(outdir, { recursive: true, force: true });
  });

  it('writes one file per export and the chunks the entries share, nothing else', () => {
    expect(filesIn(outdirs.get('provider')!)).toEqual(['index.js']);
    expect(filesIn(outdirs.get('http')!)).toEqual(['index.js']);
    const core = filesIn(outdirs.get('core')!);
    expect(core.filter((file) => !file.startsWith('chunks/'))).toEqual(['index.js', 'internal.js', 'opentelemetry.js']);
    expect(core.length).toBeLessThanOrEqual(6);
  });

  for (const name of packages) {
    for (const entry of entries[name]) {
      it(`${name}/${entry}.js exports what src/${entry}.ts exports`, async () => {
        const url = pathToFileURL(join(outdirs.get(name)!, `${entry}.js`)).href;
        const bundled = (await import(url)) as Record<string, unknown>;
        const source = await sources[`${name}/${entry}`]!();
        expect(Object.keys(bundled).sort()).toEqual(Object.keys(source).sort());
        for (const key of Object.keys(source)) expect(typeof bundled[key], key).toBe(typeof source[key]);
      });
    }
  }

  it('core’s bundle imports @verikit/provider rather than copying it, and validates as the source does', async () => {
    const main = (await import(
      pathToFileURL(join(outdirs.get('core')!, 'index.js')).href
    )) as typeof import('@verikit/core');
    const provider = await import('@verikit/provider');
    expect(main.InvalidInputError).toBe(provider.InvalidInputError);
    const { startInputSchema } = main;
    expect(startInputSchema.safeParse({ kind: 'phone', phoneNumber: '+2348031234567' }).success).toBe(true);
    expect(startInputSchema.safeParse({ kind: 'phone', phoneNumber: '+2340000000' }).success).toBe(false);
  });

  it('http’s bundle imports @verikit/core and @verikit/provider rather than copying them', async () => {
    const http = readFileSync(join(outdirs.get('http')!, 'index.js'), 'utf8');
    expect(http).toMatch(/from "@verikit\/core"/);
    expect(http).toMatch(/from "@verikit\/provider"/);
    expect(http).not.toMatch(/class VerikitError\b/);
  });
});
