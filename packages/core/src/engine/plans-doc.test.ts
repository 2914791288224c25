import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const page = readFileSync(join(root, 'docs/plans.md'), 'utf8');

/** Runs the page's ```ts block after `<!-- marker -->` as written and returns what it printed. */
async function runRecipe(marker: string): Promise<string[]> {
  const code = new RegExp(`<!-- ${marker} -->\\n\`\`\`ts\\n([\\s\\S]*?)\`\`\``).exec(page)?.[1];
  expect(code).toBeDefined();
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
  return printed;
}

describe('docs/plans.md', () => {
  it('the escalation recipe runs as written and prints what the page says', async () => {
    expect(page).toContain('It prints `sms whatsapp 45000`, then `1 whatsapp`.');
    expect(await runRecipe('escalation-recipe')).toEqual(['sms whatsapp 45000', '1 whatsapp']);
  });

  it('the DND lookup recipe runs as written against the Termii fake and prints what the page says', async () => {
    expect(page).toContain('It prints `whatsapp voice sms`.');
    expect(await runRecipe('dnd-lookup-recipe')).toEqual(['whatsapp voice sms']);
  });
});
