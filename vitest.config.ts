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
    // Time limits only say a test is lost, never how fast it must be: on a machine kept busy (a load of 20, 8
    // engineers' runs beside each other) booting three worker processes took a hook past 20 s, and 100 parallel
    // events on one flow a test past 20 s (issue 35, finding 13). What a test proves is asserted on conditions.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
