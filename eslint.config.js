// ESLint runs one rule that Biome lacks: one import statement per module, merged by `pnpm lint:fix`
// (docs/decisions/0650-duplicate-imports-merged-by-eslint.md). Everything else is Biome's (biome.jsonc).
import tsParser from '@typescript-eslint/parser';
import importX from 'eslint-plugin-import-x';

export default [
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/coverage/**', 'docs/api/**', '**/.run-*/**'],
  },
  {
    files: ['**/*.{ts,tsx,mts,cts,js,mjs,cjs}'],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { 'import-x': importX },
    // `prefer-inline`: a type and a value import from one module become one statement with `type` on the names,
    // the form the code already uses (`import { Hono, type Handler } from 'hono'`).
    rules: { 'import-x/no-duplicates': ['error', { 'prefer-inline': true }] },
  },
];
