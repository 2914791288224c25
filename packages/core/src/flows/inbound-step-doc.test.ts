import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runSnippet } from '../doc-snippet.fixtures.js';

describe('docs/flows.md, "Inbound steps"', () => {
  it('its recipe runs as written and prints what the page says', async () => {
    const page = readFileSync(join(repositoryRoot, 'docs/flows.md'), 'utf8');
    const recipe = /<!-- inbound-recipe -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(recipe, 'docs/flows.md has the inbound recipe').toBeDefined();
    expect(page).toContain('It prints `awaiting-message true sms`, then `verified 0`: nothing was sent.');
    const printed = await runSnippet(recipe!, {});
    expect(printed.trim().split('\n')).toEqual(['awaiting-message true sms', 'verified 0']);
  }, 60_000);
});
