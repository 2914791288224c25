/**
 * `pnpm architecture`: rewrites the generated parts of docs/architecture.md (the package arrows and the "imports"
 * column) from what the code imports. With `--check` it writes nothing and exits 1 when the page is out of date
 * (CI); scripts/architecture-page.test.ts checks the same in `pnpm test`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { architecturePagePath, generateArchitecturePage, repositoryRoot } from './architecture-page.js';
import { readPackageImports } from './package-imports.js';

const current = readFileSync(architecturePagePath, 'utf8');
const next = generateArchitecturePage(current, readPackageImports(repositoryRoot));
if (next === current) {
  console.log('docs/architecture.md: package arrows are up to date');
} else if (process.argv.includes('--check')) {
  console.error('docs/architecture.md is out of date with what the packages import: run `pnpm architecture`');
  process.exitCode = 1;
} else {
  writeFileSync(architecturePagePath, next);
  console.log('docs/architecture.md: package arrows regenerated');
}
