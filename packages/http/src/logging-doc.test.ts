import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const run = promisify(execFile);

/** The `ts` block after `<!-- snippet: name -->` in a docs page. */
function snippet(page: string, name: string): string {
  const code = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(
    readFileSync(join(root, page), 'utf8'),
  )?.[1];
  expect(code, `${page} has the ${name} snippet`).toBeDefined();
  return code!;
}

/** Runs a snippet as written, from inside this package so that its imports resolve to the workspace. */
async function runSnippet(code: string): Promise<{ stdout: string; stderr: string }> {
  const directory = mkdtempSync(join(root, 'packages/http/.run-'));
  try {
    const file = join(directory, 'snippet.ts');
    writeFileSync(file, `${code}\nprocess.exit(0);\n`);
    return await run(process.execPath, ['--conditions=@verikit/source', '--import', 'tsx', file], {
      cwd: root,
      timeout: 30_000,
      env: { ...process.env, VERIKIT_SECRET: 'logging-doc-secret-0123456789abcdefghij' },
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

describe('docs/logging.md', () => {
  it('its console snippet runs as written', async () => {
    await runSnippet(snippet('docs/logging.md', 'console'));
  }, 40_000);

  it('its pino snippet runs as written and prints the flow-started line with its fields', async () => {
    const { stdout } = await runSnippet(snippet('docs/logging.md', 'pino'));
    const started = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'verikit.flow.started');
    expect(started).toMatchObject({ level: 30, component: 'verikit', kind: 'phone', flowId: expect.any(String) });
  }, 40_000);
});
