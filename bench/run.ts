/**
 * `pnpm bench`: runs every `bench/*.bench.ts` (or those whose name contains an argument) in turn.
 * Each prints its figures beside a baseline measured in the same run, as a ratio: these machines
 * are noisy, so only side-by-side numbers mean anything. The rows of issue 10's table that the
 * benches return are printed together at the end (bench/summary.ts; docs/performance.md explains them).
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { printSummary, type SummaryRow } from './summary.js';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();

const rows: SummaryRow[] = [];
for (const file of files) {
  console.log(`\n# ${file}`);
  const started = performance.now();
  const module = (await import(pathToFileURL(join(here, file)).href)) as {
    run: () => Promise<readonly SummaryRow[] | undefined>;
  };
  rows.push(...((await module.run()) ?? []));
  console.log(`(${file}: ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
if (rows.length > 0) printSummary(rows);
process.exit(0);
