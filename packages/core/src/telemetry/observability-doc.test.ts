import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runSnippet as runWithEnv } from '../doc-snippet.fixtures.js';

const page = readFileSync(join(repositoryRoot, 'docs/observability.md'), 'utf8');

/** The `ts` block after `<!-- snippet: name -->`. */
function snippet(name: string): string {
  const code = new RegExp(`<!-- snippet: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(page)?.[1];
  expect(code, `docs/observability.md has the ${name} snippet`).toBeDefined();
  return code!;
}

/** Runs a snippet as written; resolves with what it printed. */
function runSnippet(code: string): Promise<string> {
  return runWithEnv(code, { VERIKIT_SECRET: 'observability-doc-secret-0123456789abcdef' });
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
