import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { binPath, capture } from './cli.fixtures.js';
import { runCli, usage } from './run-cli.js';

const run = promisify(execFile);
const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

describe('verikit --version', () => {
  for (const flag of ['--version', '-v']) {
    it(`${flag} prints the version of packages/cli/package.json and exits 0`, async () => {
      const io = capture();
      expect(await runCli([flag], io)).toBe(0);
      expect(manifest.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(io.lines).toEqual([manifest.version]);
      expect(io.errors).toEqual([]);
    });
  }
  it('is in the help text', () => {
    expect(usage).toContain('-v, --version');
  });
  it('prints it through the real bin, from source', async () => {
    const { stdout, stderr } = await run(process.execPath, [binPath, '--version'], { timeout: 30_000 });
    expect(stdout).toBe(`${manifest.version}\n`);
    expect(stderr).toBe('');
  }, 40_000);
  it('reads the manifest beside dist/ once built: the same ../package.json from a compiled file', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'verikit-cli-version-'));
    try {
      const source = await readFile(new URL('./cli-version.ts', import.meta.url), 'utf8');
      const compiled = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      await mkdir(join(folder, 'dist'));
      await writeFile(
        join(folder, 'package.json'),
        JSON.stringify({ name: '@verikit/cli', version: '9.8.7-built', type: 'module' }),
      );
      await writeFile(join(folder, 'dist', 'cli-version.js'), compiled);
      const built = (await import(pathToFileURL(join(folder, 'dist', 'cli-version.js')).href)) as {
        cliVersion(): string;
      };
      expect(built.cliVersion()).toBe('9.8.7-built');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
