/**
 * `pnpm bench`: runs every `bench/*.bench.ts` (or the one an argument names, or those whose name contains it) in turn.
 * Each prints its figures beside a baseline measured in the same run, as a ratio: these machines
 * are noisy, so only side-by-side numbers mean anything. The rows of issue 10's table that the
 * benches return are printed together at the end (bench/summary.ts; docs/performance.md explains them).
 *
 * `pnpm bench --short` runs each bench with fewer, shorter rounds (bench/mode.ts): CI runs it to prove that every
 * bench still completes. A bench that throws (or whose child process dies) is reported and the others still run;
 * the run then exits with 1.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { shortModeVariable } from './mode.js';
import { printSummary, type SummaryRow } from './summary.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
if (args.includes('--short')) process.env[shortModeVariable] = '1';
const filters = args.filter((arg) => arg !== '--short');
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .sort();
const files =
  filters.length === 0 ? benches : benches.filter((name) => filters.some((filter) => selects(filter, name)));

/**
 * Whether `filter` selects the bench file `name`: a filter that names a bench (`sse`, `redis`) selects that one only;
 * any other selects each bench whose file name contains it (`redis.bench`, `cold`).
 */
function selects(filter: string, name: string): boolean {
  return benches.includes(`${filter}.bench.ts`) ? name === `${filter}.bench.ts` : name.includes(filter);
}

const rows: SummaryRow[] = [];
const failed: string[] = [];
const runStarted = performance.now();
for (const file of files) {
  // Not `# <name>`: a log reader may take `# fail…` (the failover bench) for a TAP test runner's count line.
  console.log(`\n== ${file}`);
  const started = performance.now();
  try {
    // Imported after the mode is set: each bench reads it when it loads.
    const module = (await import(pathToFileURL(join(here, file)).href)) as {
      run: () => Promise<readonly SummaryRow[] | undefined>;
    };
    rows.push(...((await module.run()) ?? []));
  } catch (error) {
    failed.push(file);
    console.log(`FAILED: ${file}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  console.log(`(${file}: ${((performance.now() - started) / 1000).toFixed(0)} s)`);
}
if (rows.length > 0) printSummary(rows);
console.log(`\n${files.length} benches in ${((performance.now() - runStarted) / 1000).toFixed(0)} s`);
if (failed.length > 0) console.log(`FAILED: ${failed.join(', ')}`);
process.exit(failed.length > 0 || files.length === 0 ? 1 : 0);
