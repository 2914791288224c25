import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/** The repository's root. */
export const repositoryRoot = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

/**
 * Runs a documented snippet as written, from inside this package so that its imports resolve to the workspace
 * packages, with `env` added to the environment. Resolves with what it printed.
 */
export async function runSnippet(code: string, env: Record<string, string>): Promise<string> {
  const directory = mkdtempSync(join(repositoryRoot, 'packages/core/.run-'));
  try {
    const file = join(directory, 'snippet.ts');
    writeFileSync(file, code);
    const { stdout } = await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', file], {
      cwd: repositoryRoot,
      timeout: 30_000,
      env: { ...process.env, ...env },
    });
    return stdout;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
