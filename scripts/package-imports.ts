/**
 * What each package's shipped code imports, read from the code itself: the arrows docs/architecture.md draws
 * (scripts/architecture-page.ts) and the provider rule checks (scripts/package-arrows.ts). Only production source
 * counts: a test or a `.fixtures.ts` file that imports another package draws no arrow, since users never load it.
 *
 * @module
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The node every file under examples/ belongs to. */
export const examplesNode = 'examples';

/** A test, or a helper only tests load. */
const testOnly = /\.(test|fixtures)\.tsx?$/;

/** Whether a path (relative to the repository root, `/`-separated) is code a user of the package runs. */
export function isProductionSource(path: string): boolean {
  return /^(packages\/[^/]+\/src|examples)\/.+\.(ts|tsx|mts)$/.test(path) && !testOnly.test(path);
}

/**
 * The packages a source file imports (`import`, `export … from`, `import()`, type-only imports included), as
 * package names: `@verikit/core/flows` is `@verikit/core`, `hono/cors` is `hono`. Relative paths and Node's
 * built-in modules are left out. Comments and strings are not read, so an example in a doc comment draws nothing.
 */
export function importedPackages(text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const names = importedFiles
    .map(({ fileName }) => fileName)
    .filter((specifier) => !specifier.startsWith('.') && !specifier.startsWith('/') && !isBuiltin(specifier))
    .map((specifier) =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/'),
    );
  return [...new Set(names)].sort();
}

/** One package of the workspace (or the examples), and what its production source imports. */
export interface PackageImports {
  /** The package's name (`@verikit/core`), or {@link examplesNode}. */
  readonly name: string;
  /** Its folder, relative to the repository root. */
  readonly folder: string;
  /** What package.json says it is, for a table row written for the first time. */
  readonly description: string;
  /** Our packages its production source imports, sorted. */
  readonly ours: readonly string[];
  /** Everything else it imports from npm, sorted. */
  readonly thirdParty: readonly string[];
}

/** Every file under a folder, as paths relative to `root`, skipping node_modules and build output. */
function filesUnder(root: string, folder: string): string[] {
  if (!existsSync(join(root, folder))) return [];
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .filter((path) => !/(^|\/)(node_modules|dist)\//.test(path))
    .sort();
}

/** Splits imported package names into ours and third-party ones, leaving out the importer itself. */
function split(self: string, names: Iterable<string>, ours: ReadonlySet<string>) {
  const unique = [...new Set(names)].filter((name) => name !== self).sort();
  return {
    ours: unique.filter((name) => ours.has(name) || name.startsWith('@verikit/')),
    thirdParty: unique.filter((name) => !ours.has(name) && !name.startsWith('@verikit/')),
  };
}

/** What every package under packages/ and the examples import from production source, read from `root`. */
export function readPackageImports(root: string): PackageImports[] {
  const packages = readdirSync(join(root, 'packages'))
    .filter((folder) => existsSync(join(root, 'packages', folder, 'package.json')))
    .map((folder) => {
      const manifest = JSON.parse(readFileSync(join(root, 'packages', folder, 'package.json'), 'utf8'));
      return { folder: `packages/${folder}`, name: String(manifest.name), description: String(manifest.description) };
    });
  const ours = new Set(packages.map((entry) => entry.name));
  const importsOf = (folder: string) =>
    filesUnder(root, folder)
      .filter(isProductionSource)
      .flatMap((path) => importedPackages(readFileSync(join(root, path), 'utf8')));
  return [
    ...packages.map((entry) => ({ ...entry, ...split(entry.name, importsOf(`${entry.folder}/src`), ours) })),
    {
      name: examplesNode,
      folder: 'examples',
      description: 'Programs a user would copy',
      ...split(examplesNode, importsOf('examples'), ours),
    },
  ];
}
