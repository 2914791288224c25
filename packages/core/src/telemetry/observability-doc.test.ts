import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const run = promisify(execFile);
const page = readFileSync(join(root, 'docs/observability.md'), 'utf8');

/** The `ts` block after `<!-- snippet: name -->`. */
function snippet(name: string): string {
  const code = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(page)?.[1];
  expect(code, `docs/observability.md has the ${name} snippet`).toBeDefined();
  return code!;
}

/** Runs a snippet as written, from inside this package so that its imports resolve to the workspace. */
async function runSnippet(code: string): Promise<string> {
  const directory = mkdtempSync(join(root, 'packages/core/.run-'));
  try {
    const file = join(directory, 'snippet.ts');
    writeFileSync(file, code);
    const { stdout } = await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', file], {
      cwd: root,
      timeout: 30_000,
      env: { ...process.env, VERIKIT_SECRET: 'observability-doc-secret-0123456789abcdef' },
    });
    return stdout;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('docs/observability.md', () => {
  it('its global-provider snippet runs as written', async () => {
    await runSnippet(snippet('global'));
  }, 40_000);

  it('its in-memory snippet runs as written and prints the span names its comment shows', async () => {
    const code = snippet('in-memory');
    const printed = /\/\/ (verikit\.[^\n]*)\n$/.exec(code)?.[1];
    expect(printed).toBeDefined();
    expect((await runSnippet(code)).trim()).toBe(printed);
  }, 40_000);
});
