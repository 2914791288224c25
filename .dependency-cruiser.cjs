// Import rules checked in CI by `pnpm check:circles` (docs/decisions/0601-import-rules.md):
// no circular imports anywhere, and a package's source imports only the workspace packages its
// package.json declares (tests and fixtures may also use its devDependencies).
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');

const testFile = '\\.(test|fixtures)\\.tsx?$';
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** Every packages/<folder> with its package name and declared workspace dependencies. */
function workspacePackages() {
  return readdirSync(join(__dirname, 'packages'))
    .filter((folder) => existsSync(join(__dirname, 'packages', folder, 'package.json')))
    .map((folder) => {
      const manifest = JSON.parse(readFileSync(join(__dirname, 'packages', folder, 'package.json'), 'utf8'));
      const ours = (field) => Object.keys(manifest[field] ?? {}).filter((name) => name.startsWith('@verikit/'));
      return {
        folder,
        name: manifest.name,
        runtime: [...ours('dependencies'), ...ours('peerDependencies')],
        dev: ours('devDependencies'),
      };
    });
}

const packages = workspacePackages();
const folderOf = new Map(packages.map((entry) => [entry.name, entry.folder]));

/** A rule forbidding `from` files in one package to reach any package folder outside `allowed`. */
function undeclaredRule(entry, kind, allowed) {
  const folders = [entry.folder, ...allowed.map((name) => folderOf.get(name)).filter(Boolean)];
  return {
    name: `undeclared-${kind}-import-in-${entry.folder}`,
    comment:
      `${entry.name} ${kind === 'runtime' ? 'source' : 'tests'} may import only ${entry.name} and what its package.json ` +
      `declares in ${kind === 'runtime' ? 'dependencies/peerDependencies' : 'dependencies/peerDependencies/devDependencies'}: ` +
      'declare the package (if the arrow is allowed: see scripts/package-arrows.test.ts) or drop the import.',
    severity: 'error',
    from:
      kind === 'runtime'
        ? { path: `^packages/${escapeRegExp(entry.folder)}/src/`, pathNot: testFile }
        : { path: `^packages/${escapeRegExp(entry.folder)}/src/.*${testFile}` },
    to: { path: '^packages/[^/]+/', pathNot: `^packages/(${folders.map(escapeRegExp).join('|')})/` },
  };
}

/** Core's folders by layer, lowest first (scripts/core-layers.cjs, shown in docs/architecture.md, "Inside core"). */
const coreLayers = require('./scripts/core-layers.cjs').coreLayers.map((layer) => Object.keys(layer.folders));

/** For each folder of core, a rule refusing an import of a folder in its own layer or above (tests excepted). */
function coreLayerRules() {
  const listed = coreLayers.flat();
  return [
    {
      name: 'core-folder-without-layer',
      comment: `@verikit/core's source folders each have a layer in scripts/core-layers.cjs: give the new folder one.`,
      severity: 'error',
      from: {
        path: '^packages/core/src/[^/]+/',
        pathNot: `^packages/core/src/(${listed.join('|')})/`,
      },
      to: {},
    },
    ...coreLayers.flatMap((layer, index) =>
      layer.map((folder) => {
        const refused = coreLayers
          .slice(index)
          .flat()
          .filter((other) => other !== folder);
        return {
          name: `core-upward-import-from-${folder}`,
          comment:
            `In @verikit/core, ${folder}/ may import only ${coreLayers.slice(0, index).flat().join(', ') || 'no other folder'}` +
            ' (scripts/core-layers.cjs, lowest first): an import of its own layer or above runs up. Move the shared piece down, or pass it in.',
          severity: 'error',
          from: { path: `^packages/core/src/${folder}/`, pathNot: testFile },
          to: { path: `^packages/core/src/(${refused.join('|')})/` },
        };
      }),
    ),
  ];
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import circles make load order matter and hide layering mistakes: break the circle.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve is a typo or an undeclared package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-undeclared-npm-package',
      comment:
        "A package's source imports only npm packages its own package.json declares in dependencies or " +
        'peerDependencies (a hoisted root devDependency would resolve here and break for users).',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/', pathNot: testFile },
      // dependency-cruiser also tags a declared peer 'npm-no-pkg', hence the exception for what is declared.
      to: {
        dependencyTypes: ['npm-no-pkg', 'npm-unknown', 'npm-dev'],
        dependencyTypesNot: ['npm', 'npm-peer', 'npm-optional'],
      },
    },
    ...coreLayerRules(),
    ...packages.flatMap((entry) => [
      undeclaredRule(entry, 'runtime', entry.runtime),
      undeclaredRule(entry, 'test', [...entry.runtime, ...entry.dev]),
    ]),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    // Resolution only (no type checking): every package's sources, the React binding's .tsx included.
    tsConfig: { fileName: 'tsconfig.imports.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@verikit/source', 'import', 'node', 'default'],
      mainFields: ['module', 'main'],
      extensions: ['.ts', '.tsx', '.js', '.json'],
    },
  },
};
