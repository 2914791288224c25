import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  architecturePagePath,
  arrowsDiagram,
  coreLayersTable,
  generateArchitecturePage,
  packageTable,
  repositoryRoot,
} from './architecture-page.js';
import { importedPackages, isProductionSource, type PackageImports, readPackageImports } from './package-imports.js';

describe('docs/architecture.md', () => {
  it('has the arrows and the imports column the code has', () => {
    const committed = readFileSync(architecturePagePath, 'utf8');
    const regenerated = generateArchitecturePage(committed, readPackageImports(repositoryRoot));
    expect(
      regenerated === committed,
      'docs/architecture.md is out of date with what the packages import: run `pnpm architecture` and commit it',
    ).toBe(true);
  });
});

describe('importedPackages', () => {
  it('names packages, not subpaths, and leaves out relative paths, built-ins, comments and strings', () => {
    const source = [
      "import { a } from '@verikit/core/flows';",
      "import type { B } from '@verikit/provider';",
      "export { c } from 'hono/cors';",
      "import { d } from './local.js';",
      "import { readFileSync } from 'node:fs';",
      "import { EventEmitter } from 'events';",
      "const lazy = await import('ky');",
      "/** @example import { createVerikit } from '@verikit/redis'; */",
      'const text = "import { x } from \'@verikit/http\'";',
    ].join('\n');
    expect(importedPackages(source)).toEqual(['@verikit/core', '@verikit/provider', 'hono', 'ky']);
  });
});

describe('isProductionSource', () => {
  it('counts a package’s src and the examples, never a test or a fixtures file', () => {
    expect(isProductionSource('packages/http/src/create-flow-handler.ts')).toBe(true);
    expect(isProductionSource('packages/react/src/use-flow.tsx')).toBe(true);
    expect(isProductionSource('examples/signup/server/main.ts')).toBe(true);
    expect(isProductionSource('packages/http/src/http.fixtures.ts')).toBe(false);
    expect(isProductionSource('packages/client/src/observer.test.ts')).toBe(false);
    expect(isProductionSource('examples/signup/signup-browser.fixtures.ts')).toBe(false);
    expect(isProductionSource('packages/cli/bin/verikit.js')).toBe(false);
    expect(isProductionSource('scripts/architecture.ts')).toBe(false);
  });
});

describe('readPackageImports', () => {
  const root = mkdtempSync(join(tmpdir(), 'verikit-arrows-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  it('draws no arrow for a test or a fixture that imports another package', () => {
    write('packages/low/package.json', JSON.stringify({ name: '@verikit/low', description: 'Low.' }));
    write('packages/high/package.json', JSON.stringify({ name: '@verikit/high', description: 'High.' }));
    write('packages/low/src/index.ts', "import { z } from 'zod';\nexport const low = z;\n");
    write('packages/low/src/low.fixtures.ts', "import { high } from '@verikit/high';\nexport { high };\n");
    write('packages/low/src/low.test.ts', "import { high } from '@verikit/high';\nhigh();\n");
    write('packages/high/src/index.ts', "export { low } from '@verikit/low';\nimport './self.js';\n");
    write('examples/app/main.ts', "import { high } from '@verikit/high';\nhigh();\n");
    const found = readPackageImports(root);
    expect(found.map(({ name, ours, thirdParty }) => ({ name, ours, thirdParty }))).toEqual([
      { name: '@verikit/high', ours: ['@verikit/low'], thirdParty: [] },
      { name: '@verikit/low', ours: [], thirdParty: ['zod'] },
      { name: 'examples', ours: ['@verikit/high'], thirdParty: [] },
    ]);
  });
});

describe('the generated parts', () => {
  const entry = (name: string, ours: string[], thirdParty: string[] = []): PackageImports => ({
    name,
    folder: `packages/${name.replace('@verikit/', '')}`,
    description: `The ${name} package.`,
    ours,
    thirdParty,
  });
  const packages = [
    entry('@verikit/provider', [], ['zod']),
    entry('@verikit/provider-utils', ['@verikit/provider'], ['ky']),
    entry('@verikit/client', []),
    entry('@verikit/http', ['@verikit/provider']),
  ];

  it('draws one node per package, an arrow per import, and the wire arrow from client to http', () => {
    const diagram = arrowsDiagram(packages);
    expect(diagram).toContain('  provider_utils[provider-utils]');
    expect(diagram).toContain('  provider_utils --> provider');
    expect(diagram).toContain('  client -. HTTP and SSE .-> http');
    expect(diagram).not.toContain('client -->');
  });

  it('keeps a row’s "owns" text, writes a new row from package.json and drops the row of a package that is gone', () => {
    const current = [
      '| package | owns | imports |',
      '|---|---|---|',
      '| [`@verikit/provider`](../packages/provider/README.md) | the spec, written by hand | stale |',
      '| [`@verikit/sandbox`](../packages/sandbox/README.md) | a package that is gone | provider |',
    ].join('\n');
    const table = packageTable(packages, current);
    expect(table).toContain(
      '| [`@verikit/provider`](../packages/provider/README.md) | the spec, written by hand | zod |',
    );
    expect(table).toContain(
      '| [`@verikit/provider-utils`](../packages/provider-utils/README.md) | The @verikit/provider-utils package. | provider; ky |',
    );
    expect(table).toContain(
      '| [`@verikit/client`](../packages/client/README.md) | The @verikit/client package. | nothing |',
    );
    expect(table).not.toContain('sandbox');
  });

  it('rewrites only what lies between the markers, and names a missing marker', () => {
    const page = [
      'before',
      '<!-- generated:packages:start (pnpm architecture) -->',
      'old table',
      '<!-- generated:packages:end -->',
      'between',
      '<!-- generated:arrows:start (pnpm architecture) -->',
      'old drawing',
      '<!-- generated:arrows:end -->',
      'and',
      '<!-- generated:core-layers:start (pnpm architecture) -->',
      'old layers',
      '<!-- generated:core-layers:end -->',
      'after',
    ].join('\n');
    const next = generateArchitecturePage(page, packages);
    expect(next.startsWith('before\n')).toBe(true);
    expect(next).toContain('<!-- generated:packages:end -->\nbetween\n');
    expect(next).toContain('<!-- generated:arrows:end -->\nand\n');
    expect(next.endsWith('<!-- generated:core-layers:end -->\nafter')).toBe(true);
    for (const old of ['old table', 'old drawing', 'old layers']) expect(next).not.toContain(old);
    expect(generateArchitecturePage(next, packages)).toBe(next);
    expect(() => generateArchitecturePage('no markers', packages)).toThrow(
      'docs/architecture.md needs the markers <!-- generated:packages:start (pnpm architecture) -->',
    );
  });
});

describe("core's folder layers", () => {
  it('lists every source folder of core once, each with what it may import', () => {
    const table = coreLayersTable();
    const folders = [...table.matchAll(/^\| \d+\. [a-z]+ \| `([a-z-]+)\/` \|/gm)].map((match) => match[1]);
    const onDisk = readdirSync(join(repositoryRoot, 'packages/core/src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.toSorted()).toEqual(onDisk.toSorted());
    expect(table).toContain('| 1. foundations | `errors/` |');
    expect(table).toMatch(/\| 5\. engine \| `engine\/` \| .* \| foundations, flows, store, services \|/);
  });
});
