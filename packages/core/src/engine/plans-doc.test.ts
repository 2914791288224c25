import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const page = readFileSync(join(root, 'docs/plans.md'), 'utf8');

describe('docs/plans.md', () => {
  it('the escalation recipe runs as written and prints what the page says', async () => {
    const code = /<!-- escalation-recipe -->\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(code).toBeDefined();
    expect(page).toContain('It prints `sms whatsapp 45000`, then `1 whatsapp`.');
    // Written inside the repository, so that its imports resolve to the workspace packages, and run here.
    const directory = mkdtempSync(join(root, 'packages/core/.run-'));
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    try {
      writeFileSync(join(directory, 'recipe.ts'), code!);
      await import(join(directory, 'recipe.ts'));
    } finally {
      log.mockRestore();
      rmSync(directory, { recursive: true, force: true });
    }
    expect(printed).toEqual(['sms whatsapp 45000', '1 whatsapp']);
  });
});
