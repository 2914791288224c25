import { defineConfig } from 'vitest/config';

// Tests read TypeScript source through the "@verikit/source" export condition,
// so `pnpm test` needs no build first (docs/decisions/0001-tests-read-source.md). No `import` condition here:
// vitest hands these conditions to node, where `import` would make a CommonJS `require` of a dual package load
// its ESM file (Express's router then gets a module namespace for `is-promise`); vite adds `import` itself.
export default defineConfig({
  resolve: { conditions: ['@verikit/source', 'node', 'default'] },
  ssr: { resolve: { conditions: ['@verikit/source', 'node', 'default'] } },
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
