/**
 * A package's `build` runs `tsc --emitDeclarationOnly` (the `.d.ts` files) and then this script, from the package's
 * folder: it bundles the package's JavaScript into `dist/`, one file per entry of its `exports` map plus the chunks
 * the entries share, with esbuild (the TypeScript transform the tests already run through tsx). Every dependency
 * stays an import of its own (nothing of another package is copied in). `tsx ../../scripts/bundle-dist.ts [outdir]`. A node that imports the package then links
 * a handful of ES modules instead of one per source file, most of what importing verikit's own code cost
 * (decision 1360).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

interface ExportTarget {
  readonly '@verikit/source'?: string;
  readonly default?: string;
}

/** `{ 'dist/index': 'src/index.ts', … }`: each export's built file (without `.js`) and the source it comes from. */
function bundleEntries(packageDirectory: string): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(packageDirectory, 'package.json'), 'utf8')) as {
    readonly name: string;
    readonly exports: Record<string, ExportTarget | string>;
  };
  const entries: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === 'string') continue; // ./package.json
    const source = target['@verikit/source'];
    const built = target.default;
    if (source === undefined || built === undefined || !built.startsWith('./dist/') || !built.endsWith('.js')) {
      throw new Error(`${manifest.name}: export ${subpath} needs a @verikit/source and a ./dist/*.js default`);
    }
    entries[built.slice(2, -'.js'.length)] = join(packageDirectory, source);
  }
  return entries;
}

/** Bundles the package in `packageDirectory` into its `dist/` (or `outdir`). */
async function bundleDist(packageDirectory: string, outdir: string): Promise<void> {
  const entries = Object.entries(bundleEntries(packageDirectory)).map(([out, input]) => ({
    in: input,
    out: out.slice('dist/'.length),
  }));
  await build({
    entryPoints: entries,
    absWorkingDir: packageDirectory,
    outdir,
    bundle: true,
    splitting: true, // the entries share one copy of each module (one engine, one set of error classes)
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    tsconfig: join(packageDirectory, 'tsconfig.build.json'),
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: true,
    sourcesContent: false, // the maps point into src/, which the package ships
    logLevel: 'warning',
  });
}

// `tsx ../../scripts/bundle-dist.ts [outdir]`, from the package's folder; outdir defaults to dist/.
await bundleDist(process.cwd(), resolve(process.argv[2] ?? 'dist'));
