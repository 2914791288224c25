import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// `pnpm lint` runs eslint.config.js for its one rule; this shows the rule fails on two imports from one module and
// that its fix merges them (docs/decisions/0650-duplicate-imports-merged-by-eslint.md).
const eslint = new ESLint({ cwd: new URL('..', import.meta.url).pathname });
const lint = (code: string) => eslint.lintText(code, { filePath: 'packages/example/src/sample.ts' });

describe('one import statement per module', () => {
  it('reports a second import from the same module, type-only ones included', async () => {
    const [result] = await lint(
      "import { a } from './a.js';\nimport type { B } from './a.js';\nexport const c: B = a;\n",
    );
    expect(result?.messages.map((message) => message.ruleId)).toEqual([
      'import-x/no-duplicates',
      'import-x/no-duplicates',
    ]);
  });

  it('merges them into the first, with `type` on the type-only names', async () => {
    const fixer = new ESLint({ cwd: new URL('..', import.meta.url).pathname, fix: true });
    const [result] = await fixer.lintText(
      "import { a } from './a.js';\nimport { z } from 'zod';\nimport type { B } from './a.js';\nexport const c: B = [a, z];\n",
      { filePath: 'packages/example/src/sample.ts' },
    );
    expect(result?.output).toBe(
      "import { a, type B } from './a.js';\nimport { z } from 'zod';\nexport const c: B = [a, z];\n",
    );
  });

  it('leaves one import per module alone', async () => {
    const [result] = await lint("import { a, type B } from './a.js';\nexport const c: B = a;\n");
    expect(result?.messages).toEqual([]);
  });
});
