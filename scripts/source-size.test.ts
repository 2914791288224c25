import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Small files with one job: no source file over 300 lines, and the engine's composition root well under that,
// so what it wires stays in files named after their job (tests and test fixtures aside).
const maxLines = 300;
const engineFile = 'packages/core/src/engine/create-verikit.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const sourceFile = /\.(ts|tsx|js|mjs|cjs)$/;
const testOrFixture = /\.(test|fixtures)\.(ts|tsx)$/;

/** Every source file under packages/<name>/src, as a repository-relative path. */
function sourceFiles(): string[] {
  return readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const src = join(root, 'packages', entry.name, 'src');
      try {
        return readdirSync(src, { recursive: true, encoding: 'utf8' }).map((path) => join(src, path));
      } catch {
        return [];
      }
    })
    .filter((path) => sourceFile.test(path) && !testOrFixture.test(path))
    .map((path) => relative(root, path).split('\\').join('/'));
}

/** Lines as an editor numbers them: a final newline does not start another line. */
function lineCount(path: string): number {
  const text = readFileSync(join(root, path), 'utf8');
  return text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
}

describe('source file size', () => {
  it(`no source file in packages/*/src is over ${maxLines} lines`, () => {
    const files = sourceFiles();
    expect(files).toContain(engineFile);
    const tooLong = files.filter((path) => lineCount(path) > maxLines).map((path) => `${path}: ${lineCount(path)} lines`);
    expect(tooLong, `split these files by job (at most ${maxLines} lines each)`).toEqual([]);
  });

  it(`${engineFile} is under 200 lines`, () => {
    expect(lineCount(engineFile), 'move what the engine does into files named after each job').toBeLessThan(200);
  });
});
