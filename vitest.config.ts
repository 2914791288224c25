import { defineConfig } from 'vitest/config';

// Tests read TypeScript source through the "@verikit/source" export condition,
// so `pnpm test` needs no build first (docs/decisions/0001-tests-read-source.md).
export default defineConfig({
  resolve: { conditions: ['@verikit/source', 'node', 'import', 'default'] },
  ssr: { resolve: { conditions: ['@verikit/source', 'node', 'import', 'default'] } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/src/**/*.test.tsx',
      'examples/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
