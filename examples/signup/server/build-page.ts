import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';

/** The page's sources: web/index.html and what it imports. */
const webDir = fileURLToPath(new URL('../web/', import.meta.url));

/** Where `pnpm start` puts the built page. */
const defaultPageDir = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * Builds the React page with Vite's JS API into `outDir`. The verikit packages are read from their
 * TypeScript sources (the `@verikit/source` export condition), as in the repository's tests, so
 * nothing needs building first; an app installing them from npm drops that condition.
 */
export async function buildPage(outDir: string = defaultPageDir): Promise<string> {
  // Vite and the React plugin choose a production build from NODE_ENV alone, which a test runner
  // sets to `test`: production it is, for this build only, so the page tested is the page served.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await buildWithVite(outDir);
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return outDir;
}

async function buildWithVite(outDir: string): Promise<void> {
  await build({
    root: webDir,
    configFile: false,
    logLevel: 'warn',
    plugins: [react()],
    resolve: { conditions: ['@verikit/source', 'browser', 'module', 'import', 'default'] },
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
}
