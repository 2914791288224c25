import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runSnippet } from '../doc-snippet.fixtures.js';

describe('docs/flows.md, "The identity ladder"', () => {
  it('its recipe runs as written and prints what its comment says', async () => {
    const page = readFileSync(join(repositoryRoot, 'docs/flows.md'), 'utf8');
    const recipe = /<!-- identity-ladder-recipe -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(recipe, 'docs/flows.md has the identity ladder recipe').toBeDefined();
    expect(recipe).toContain('// awaiting-code otp');
    const printed = await runSnippet(recipe!, { VERIKIT_SECRET: 'ladder-doc-secret-0123456789abcdefghijkl' });
    expect(printed.trim()).toBe('awaiting-code otp');
  }, 40_000);
});
