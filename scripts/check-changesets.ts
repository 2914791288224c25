/**
 * `pnpm check:changesets`: fails when a published package's shipped files changed since the last release point
 * and no pending changeset names the package (scripts/changeset-check.ts).
 */
import { fileURLToPath } from 'node:url';
import { describeMissing, missingChangesets, releaseBase } from './changeset-check.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const base = releaseBase(root);
const missing = missingChangesets(root, base.commit);
if (missing.length > 0) {
  console.error(describeMissing(missing, base));
  process.exitCode = 1;
} else {
  console.log(`changesets: every published package changed since ${base.commit.slice(0, 12)} has one (${base.reason})`);
}
