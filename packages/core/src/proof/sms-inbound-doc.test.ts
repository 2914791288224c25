import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, runSnippet } from '../doc-snippet.fixtures.js';

describe('docs/flows.md, "Inbound steps": sms-inbound proofs are opt-in (decision 1800)', () => {
  it('its recipe runs as written and prints what the page says', async () => {
    const page = readFileSync(join(repositoryRoot, 'docs/flows.md'), 'utf8');
    const recipe = /<!-- sms-inbound-recipe -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(recipe, 'docs/flows.md has the sms-inbound recipe').toBeDefined();
    const refusal = 'sms-inbound proofs are refused unless named in methods: SMS sender numbers can be forged';
    expect(page.replace(/\n/g, ' ')).toContain(`It prints \`${refusal}\`, then \`sms-inbound\``);
    const printed = await runSnippet(recipe!, {});
    expect(printed.trim().split('\n')).toEqual([refusal, 'sms-inbound']);
  }, 60_000);
});
