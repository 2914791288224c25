/**
 * The published build of some workspace packages (their `dist/`, by each package's own `build` script), for the
 * benches that measure what users run rather than the source through tsx: the cold import, and the SSE server,
 * whose per-stream heap tsx inflates (esbuild's `keepNames` gives every function an own `name` property, about 200
 * bytes per closure; docs/performance.md).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The node flag that makes workspace packages resolve to their source: a child without it runs their `dist/`. */
export const sourceCondition = '--conditions=@verikit/source';

/**
 * Builds `packages/<name>` for each name, in the order given (dependencies first); returns how to remove the
 * `dist/` directories that were not there before (a stale `dist/` would mislead knip and the type checks).
 */
export function buildPackages(names: readonly string[]): () => void {
  const built = names.map((name) => join(root, 'packages', name, 'dist'));
  const existed = built.map((directory) => existsSync(directory));
  for (const name of names) {
    execFileSync('pnpm', ['run', 'build'], { cwd: join(root, 'packages', name), stdio: 'ignore' });
  }
  return () => {
    for (const [index, directory] of built.entries()) if (!existed[index]) rmSync(directory, { recursive: true });
  };
}
