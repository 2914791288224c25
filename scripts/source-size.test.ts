import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A budget, not a wall (docs/decisions/0600-biome-format-and-lint.md). A source file past `warnAt` lines is
// printed as a warning: it is worth a look, since it may hold more than one job. Only past `failAt` does the
// test fail: no file in this repository has needed that many lines for one job, and one that does should say
// so by raising the budget here with its reason. The budget never chooses the line width or squeezes comments.
const warnAt = 300;
const failAt = 500;
const engineFile = 'packages/core/src/engine/create-verikit.ts';
const engineBudget = 250;

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
  it(`no source file in packages/*/src is over ${failAt} lines (over ${warnAt} is printed as a warning)`, () => {
    const files = sourceFiles();
    expect(files).toContain(engineFile);
    const sized = files.map((path) => ({ path, lines: lineCount(path) }));
    const long = sized.filter((file) => file.lines > warnAt);
    if (long.length > 0) {
      console.warn(
        `source files over ${warnAt} lines (a look, not a failure):\n${long.map((f) => `  ${f.path}: ${f.lines}`).join('\n')}`,
      );
    }
    const tooLong = sized.filter((file) => file.lines > failAt).map((file) => `${file.path}: ${file.lines} lines`);
    expect(tooLong, `split these files by job, or raise the budget here with the reason`).toEqual([]);
  });

  it(`${engineFile} stays a wiring file (under ${engineBudget} lines)`, () => {
    expect(lineCount(engineFile), 'move what the engine does into files named after each job').toBeLessThan(
      engineBudget,
    );
  });
});
