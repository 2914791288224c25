/**
 * The flow handler, the engine on its in-memory store, the client and the test provider on the runtimes the README
 * names, each installed from npm (`bun`, `deno`, `miniflare` with its `workerd`): `smoke.ts` bundled once, run on each,
 * and its answer compared with Node's. A runtime whose binary cannot run here is skipped with the reason printed; the
 * versions are printed too.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smoke } from './smoke.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, '../../node_modules/.bin');
const out = mkdtempSync(join(tmpdir(), 'verikit-runtimes-'));

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: 120_000, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout.trim()),
    );
  });
}

/** The runtime's version, or the reason it cannot run here (printed, and its test skipped). */
async function versionOf(path: string, args: string[], name = path): Promise<{ version?: string; reason?: string }> {
  try {
    const version = (await run(path.includes('/') ? path : join(bin, path), args)).split('\n')[0]!;
    console.log(`[runtimes] ${name}: ${version}`);
    return { version };
  } catch (error) {
    const reason = `${name} cannot run here (${(error as Error).message.split('\n')[0]})`;
    console.warn(`[skip] ${reason}`);
    return { reason };
  }
}

/**
 * Bun's binary from its platform package: pnpm runs no install script but esbuild's (pnpm-workspace.yaml), so the
 * `bun` package's postinstall never puts the binary behind node_modules/.bin/bun.
 */
function bunBinary(): string {
  try {
    const fromBun = createRequire(createRequire(join(here, '../../package.json')).resolve('bun/package.json'));
    return join(dirname(fromBun.resolve(`@oven/bun-${process.platform}-${process.arch}/package.json`)), 'bin', 'bun');
  } catch {
    return join(bin, 'bun');
  }
}
const bunPath = bunBinary();
const bun = await versionOf(bunPath, ['--version'], 'bun');
const deno = await versionOf('deno', ['--version']);
const workerdVersion = (() => {
  try {
    const require = createRequire(join(here, '../../package.json'));
    const miniflare = JSON.parse(readFileSync(require.resolve('miniflare/package.json'), 'utf8')) as {
      version: string;
    };
    const workerd = JSON.parse(
      readFileSync(createRequire(require.resolve('miniflare/package.json')).resolve('workerd/package.json'), 'utf8'),
    ) as { version: string };
    console.log(`[runtimes] miniflare ${miniflare.version}, workerd ${workerd.version}`);
    return { version: workerd.version };
  } catch (error) {
    const reason = `miniflare/workerd cannot be found (${(error as Error).message})`;
    console.warn(`[skip] ${reason}`);
    return { reason };
  }
})();

/**
 * `@verikit/provider` loads `libphonenumber-js/max` on first use through `createRequire(import.meta.url)`, which a
 * bundle cannot follow and workerd has no file system for: the bundle provides that one module, as an app bundling
 * for these runtimes must (docs/runtimes.md).
 */
const phoneLibraryShim = {
  name: 'phone-library',
  setup(builder: { onResolve: Function; onLoad: Function }) {
    builder.onResolve({ filter: /^node:module$/ }, () => ({ path: 'node:module', namespace: 'phone-library' }));
    builder.onLoad({ filter: /.*/, namespace: 'phone-library' }, () => ({
      resolveDir: join(here, '../../packages/provider/src'),
      contents: `import * as max from 'libphonenumber-js/max';
export function createRequire() {
  return (id) => { if (id === 'libphonenumber-js/max') return max; throw new Error('not bundled: ' + id); };
}`,
    }));
  },
};

const bundle = (entry: string, outfile: string) =>
  build({
    plugins: [phoneLibraryShim as never],
    entryPoints: [join(here, entry)],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['@verikit/source'],
    mainFields: ['module', 'main'],
    // The runtimes bring Node's modules (workerd with `nodejs_compat`): @verikit/http's node adapter imports them bare.
    external: ['node:*', ...builtinModules],
    outfile: join(out, outfile),
    logLevel: 'error',
  });

describe('the smoke suite on Bun, Deno and workerd (issue 37)', () => {
  let expected: string;
  beforeAll(async () => {
    await Promise.all([bundle('smoke-main.ts', 'main.mjs'), bundle('smoke-worker.ts', 'worker.mjs')]);
    expected = await smoke();
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('Node answers what the other runtimes must', () => {
    expect(JSON.parse(expected)).toEqual({
      started: 'awaiting-code',
      wrong: 'awaiting-code',
      right: 'verified',
      verified: '+2348012345678',
      replay: 'proof_rejected',
    });
  });

  it.skipIf(bun.reason !== undefined)(
    'Bun',
    async () => {
      expect(await run(bunPath, [join(out, 'main.mjs')])).toBe(expected);
    },
    120_000,
  );

  it.skipIf(deno.reason !== undefined)(
    'Deno',
    async () => {
      expect(await run(join(bin, 'deno'), ['run', '--allow-env', '--quiet', join(out, 'main.mjs')])).toBe(expected);
    },
    120_000,
  );

  it.skipIf(workerdVersion.reason !== undefined)(
    'workerd, through miniflare',
    async () => {
      const { Miniflare } = await import('miniflare');
      const worker = new Miniflare({
        modules: true,
        script: readFileSync(join(out, 'worker.mjs'), 'utf8'),
        compatibilityDate: '2025-09-01',
        compatibilityFlags: ['nodejs_compat'],
      });
      try {
        const response = await worker.dispatchFetch('http://smoke.invalid/');
        expect(await response.text()).toBe(expected);
      } finally {
        await worker.dispose();
      }
    },
    120_000,
  );
});
