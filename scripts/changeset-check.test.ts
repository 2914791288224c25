import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  changesetPackages,
  describeMissing,
  isShippedFile,
  missingChangesets,
  releaseBase,
} from './changeset-check.js';

describe('the changeset check, on a throw-away repository', () => {
  let repo = '';
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  const commit = (message: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  const check = () => missingChangesets(repo, releaseBase(repo).commit);

  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'verikit-changesets-'));
    git('init', '-q');
    git('config', 'user.email', 'test@example.com');
    git('config', 'user.name', 'test');
    git('config', 'commit.gpgsign', 'false');
    write('packages/core/package.json', JSON.stringify({ name: '@verikit/core', version: '0.1.0' }));
    write('packages/core/src/index.ts', 'export const a = 1;\n');
    write('packages/tools/package.json', JSON.stringify({ name: 'tools', private: true }));
    write('packages/tools/src/index.ts', 'export const t = 1;\n');
    commit('first');
    write('.changeset/config.json', '{}\n');
    write('.changeset/README.md', '# Changesets\n');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('counts from the commit that set changesets up while nothing was released', () => {
    const setUp = commit('changesets');
    expect(releaseBase(repo)).toEqual({ commit: setUp, reason: 'no release yet: the commit that set up changesets' });
    expect(check()).toEqual([]);
  });

  it('fails when a published package’s source changed with no changeset naming it, and passes with one', () => {
    commit('changesets');
    write('packages/core/src/index.ts', 'export const a = 2;\n');
    write('packages/core/src/new-file.ts', 'export const b = 1;\n');
    commit('change core');
    expect(check()).toEqual([
      { name: '@verikit/core', files: ['packages/core/src/index.ts', 'packages/core/src/new-file.ts'] },
    ]);
    write('.changeset/other.md', "---\n'@verikit/http': patch\n---\n\nSomething else.\n");
    expect(check()).toHaveLength(1);
    write('.changeset/core-a.md', "---\n'@verikit/core': minor\n---\n\n`a` is 2.\n");
    expect(check()).toEqual([]);
  });

  it('sees a change not committed yet', () => {
    commit('changesets');
    write('packages/core/src/index.ts', 'export const a = 3;\n');
    expect(check().map(({ name }) => name)).toEqual(['@verikit/core']);
  });

  it('asks nothing for tests, fixtures, docs or a private package', () => {
    commit('changesets');
    write('packages/core/src/index.test.ts', 'test\n');
    write('packages/core/src/core.fixtures.ts', 'export const f = 1;\n');
    write('packages/core/README.md', '# core\n');
    write('packages/tools/src/index.ts', 'export const t = 2;\n');
    commit('no user-visible change');
    expect(check()).toEqual([]);
  });

  it('counts from the last release once changesets were consumed', () => {
    commit('changesets');
    write('.changeset/core-a.md', "---\n'@verikit/core': minor\n---\n\n`a` is 2.\n");
    write('packages/core/src/index.ts', 'export const a = 2;\n');
    commit('change core, with a changeset');
    unlinkSync(join(repo, '.changeset/core-a.md'));
    write('packages/core/CHANGELOG.md', '# @verikit/core\n\n## 0.2.0\n');
    const release = commit('release: consume the changesets');
    expect(releaseBase(repo)).toEqual({
      commit: release,
      reason: 'the last commit that consumed changesets (a release)',
    });
    expect(check()).toEqual([]);
    write('packages/core/src/index.ts', 'export const a = 3;\n');
    commit('change core again');
    const missing = check();
    expect(missing).toEqual([{ name: '@verikit/core', files: ['packages/core/src/index.ts'] }]);
    expect(describeMissing(missing, releaseBase(repo))).toContain(
      '  @verikit/core: packages/core/src/index.ts\nRun `pnpm changeset`',
    );
  });

  it('does not take a changeset deleted by hand, without changelogs, for a release', () => {
    const setUp = commit('changesets');
    write('.changeset/core-a.md', "---\n'@verikit/core': minor\n---\n\n`a` is 2.\n");
    write('packages/core/src/index.ts', 'export const a = 2;\n');
    commit('change core, with a changeset');
    unlinkSync(join(repo, '.changeset/core-a.md'));
    commit('drop the changeset');
    expect(releaseBase(repo).commit).toBe(setUp);
    expect(check().map(({ name }) => name)).toEqual(['@verikit/core']);
  });

  it('refuses to guess on a repository without changesets', () => {
    expect(() => releaseBase(repo)).toThrow('changesets are not set up');
  });
});

describe('changesetPackages', () => {
  it('reads the package names of the front matter, quoted or not, and nothing from the text', () => {
    const text =
      "---\n'@verikit/core': minor\n\"@verikit/http\": patch\n@verikit/cli: major\n---\n\n'@verikit/x': minor\n";
    expect(changesetPackages(text)).toEqual(['@verikit/core', '@verikit/http', '@verikit/cli']);
    expect(changesetPackages('no front matter')).toEqual([]);
  });
});

describe('isShippedFile', () => {
  it('is source and bin, less tests and fixtures', () => {
    expect(isShippedFile('src/engine/create-verikit.ts')).toBe(true);
    expect(isShippedFile('bin/verikit.js')).toBe(true);
    expect(isShippedFile('src/engine/engine.fixtures.ts')).toBe(false);
    expect(isShippedFile('src/view.test.tsx')).toBe(false);
    expect(isShippedFile('README.md')).toBe(false);
    expect(isShippedFile('package.json')).toBe(false);
  });
});
