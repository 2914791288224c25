import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runSnippet } from '../doc-snippet.fixtures.js';

describe('docs/abuse.md, "Money: the cost ledger"', () => {
  it('its recipe runs as written and prints what the page says', async () => {
    const page = readFileSync(join(repositoryRoot, 'docs/abuse.md'), 'utf8');
    const recipe = /<!-- cost-ledger-recipe -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(recipe, 'docs/abuse.md has the cost ledger recipe').toBeDefined();
    expect(page).toContain('It prints `2 13.5 NGN`.');
    const printed = await runSnippet(recipe!, { VERIKIT_SECRET: 'cost-ledger-doc-secret-0123456789abcdefgh' });
    expect(printed.trim()).toBe('2 13.5 NGN');
  }, 40_000);
});
