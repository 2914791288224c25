/**
 * `pnpm bench`: runs every `bench/*.bench.ts` (or those whose name contains an argument) in turn.
 * Each prints its figures beside a baseline measured in the same run, as a ratio: these machines
 * are noisy, so only side-by-side numbers mean anything.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();

for (const file of files) {
  console.log(`\n# ${file}`);
  const module = (await import(pathToFileURL(join(here, file)).href)) as { run: () => Promise<void> };
  await module.run();
}
process.exit(0);
