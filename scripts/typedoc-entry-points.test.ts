import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The API reference (`pnpm run docs`) documents what typedoc is pointed at: the root typedoc.json's default entry
// (packageOptions.entryPoints) unless a package's own typedoc.json lists its entries. A subpath a package.json
// exports but no typedoc.json names is public API with no reference page (as `@verikit/core/opentelemetry` was).
const root = fileURLToPath(new URL('..', import.meta.url));

/** Subpaths exported for verikit's own packages and tools only; each says why in its package's typedoc.json. */
const notPublic: Record<string, string[]> = { '@verikit/core': ['./internal'] };

interface Manifest {
  name: string;
  private?: boolean;
  exports?: Record<string, string | Record<string, string>>;
}

/** A typedoc.json (JSON with comments), parsed the way TypeScript reads a tsconfig. */
function readJsonc(path: string): { entryPoints?: string[]; packageOptions?: { entryPoints?: string[] } } {
  const parsed = ts.parseConfigFileTextToJson(path, readFileSync(path, 'utf8'));
  if (parsed.error) throw new Error(`${path}: ${ts.flattenDiagnosticMessageText(parsed.error.messageText, '\n')}`);
  return parsed.config;
}

const defaultEntries = readJsonc(join(root, 'typedoc.json')).packageOptions?.entryPoints ?? [];

/** Every published package: its folder, manifest and the source files typedoc documents. */
function publishedPackages(): { folder: string; manifest: Manifest; entries: string[] }[] {
  return readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
    .map((entry) => {
      const folder = join(root, 'packages', entry.name);
      const manifest: Manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
      const own = join(folder, 'typedoc.json');
      const entries = existsSync(own) ? (readJsonc(own).entryPoints ?? defaultEntries) : defaultEntries;
      return { folder, manifest, entries: entries.map((path) => path.replace(/^\.\//, '')) };
    })
    .filter(({ manifest }) => !manifest.private);
}

/** The source file a subpath export resolves to under the `@verikit/source` condition, or undefined. */
function sourceOf(target: string | Record<string, string>): string | undefined {
  const path = typeof target === 'string' ? undefined : target['@verikit/source'];
  return path?.replace(/^\.\//, '');
}

describe('the API reference', () => {
  const packages = publishedPackages();

  it('finds the published packages and their exports', () => {
    expect(packages.map(({ manifest }) => manifest.name)).toContain('@verikit/core');
    expect(packages.every(({ manifest }) => manifest.exports?.['.'])).toBe(true);
  });

  it.each(packages.map((pkg) => [pkg.manifest.name, pkg] as const))(
    'documents every public subpath of %s',
    (_, pkg) => {
      const skipped = ['./package.json', ...(notPublic[pkg.manifest.name] ?? [])];
      const missing = Object.entries(pkg.manifest.exports ?? {})
        .filter(([subpath]) => !skipped.includes(subpath))
        .filter(([, target]) => {
          const source = sourceOf(target);
          return source === undefined || !pkg.entries.includes(source);
        })
        .map(([subpath]) => subpath);
      expect(missing, `exported by ${pkg.manifest.name} but not among typedoc's entry points`).toEqual([]);
    },
  );

  it('names only entry points that exist', () => {
    const absent = packages.flatMap(({ folder, entries }) =>
      entries.filter((path) => !existsSync(join(folder, path))).map((path) => join(folder, path)),
    );
    expect(absent).toEqual([]);
  });

  it('leaves out only subpaths a package still exports', () => {
    const stale = Object.entries(notPublic).flatMap(([name, subpaths]) => {
      const pkg = packages.find(({ manifest }) => manifest.name === name);
      return subpaths.filter((subpath) => !pkg?.manifest.exports?.[subpath]).map((subpath) => `${name}${subpath}`);
    });
    expect(stale).toEqual([]);
  });
});
