/**
 * A change to a published package needs a changeset (docs/decisions/0652-changeset-required.md): the published
 * packages whose shipped files changed since the last release point, less those a pending changeset names. Run by
 * `pnpm check:changesets` (scripts/check-changesets.ts) in .ci/run; tested in scripts/changeset-check.test.ts.
 *
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs git in `cwd` and returns its output without the final newline. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trimEnd();
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

/** The folder of pending changesets, and its files that are not changesets. */
const changesetFolder = '.changeset';
const notChangesets = new Set(['README.md']);

/** Where the check counts from, and why that commit. */
export interface ReleaseBase {
  readonly commit: string;
  readonly reason: string;
}

/**
 * The last release point: the newest commit that removed pending changesets and wrote a package's CHANGELOG.md,
 * which is what `changeset version` does for a release (a changeset deleted by hand does not move it); before any
 * release, the commit that set changesets up. Throws when the history is too shallow to tell.
 */
export function releaseBase(cwd: string): ReleaseBase {
  if (git(cwd, 'rev-parse', '--is-shallow-repository') === 'true') {
    throw new Error('the changeset check needs the full git history (fetch with --unshallow or fetch-depth: 0)');
  }
  const consumed = lines(git(cwd, 'log', '--format=%H', '--diff-filter=D', '--', `${changesetFolder}/*.md`)).find(
    (commit) => git(cwd, 'show', '--name-only', '--format=', commit, '--', 'packages/*/CHANGELOG.md') !== '',
  );
  if (consumed !== undefined)
    return { commit: consumed, reason: 'the last commit that consumed changesets (a release)' };
  const setUp = git(cwd, 'log', '--format=%H', '--diff-filter=A', '--', `${changesetFolder}/config.json`);
  const first = lines(setUp).at(-1);
  if (first !== undefined) return { commit: first, reason: 'no release yet: the commit that set up changesets' };
  throw new Error(`no ${changesetFolder}/config.json in the history: changesets are not set up`);
}

/** Whether a path in a package is shipped to users (source or bin, not a test or a test fixture). */
export function isShippedFile(pathInPackage: string): boolean {
  return /^(src|bin)\//.test(pathInPackage) && !/\.(test|fixtures)\.[cm]?[jt]sx?$/.test(pathInPackage);
}

/** The package names a changeset's front matter lists (`'@verikit/core': minor`). */
export function changesetPackages(text: string): string[] {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  return lines(front)
    .map((line) => /^\s*(["']?)([^"':\s]+)\1\s*:\s*(major|minor|patch|none)\s*$/.exec(line)?.[2])
    .filter((name): name is string => name !== undefined);
}

/** A published package whose shipped files changed with no pending changeset naming it. */
export interface MissingChangeset {
  readonly name: string;
  readonly files: readonly string[];
}

/** The published packages: packages/<folder>/package.json files that are not private. */
function publishedPackages(cwd: string): Array<{ folder: string; name: string }> {
  const root = join(cwd, 'packages');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((folder) => existsSync(join(root, folder, 'package.json')))
    .map((folder) => ({ folder, manifest: JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ folder, manifest }) => ({ folder: `packages/${folder}`, name: String(manifest.name) }));
}

/**
 * Every published package whose shipped files differ from `base` (committed or not, new files included) and that
 * no pending changeset names. An empty list means the check passes.
 */
export function missingChangesets(cwd: string, base: string): MissingChangeset[] {
  const changed = [
    ...lines(git(cwd, 'diff', '--name-only', base, '--')),
    ...lines(git(cwd, 'ls-files', '--others', '--exclude-standard')),
  ];
  const folder = join(cwd, changesetFolder);
  const named = new Set(
    (existsSync(folder) ? readdirSync(folder) : [])
      .filter((file) => file.endsWith('.md') && !notChangesets.has(file))
      .flatMap((file) => changesetPackages(readFileSync(join(folder, file), 'utf8'))),
  );
  return publishedPackages(cwd)
    .filter(({ name }) => !named.has(name))
    .map(({ folder: packageFolder, name }) => ({
      name,
      files: changed.filter(
        (path) => path.startsWith(`${packageFolder}/`) && isShippedFile(path.slice(packageFolder.length + 1)),
      ),
    }))
    .filter(({ files }) => files.length > 0);
}

/** The failure message: which packages, a few of their files, and what to do. */
export function describeMissing(missing: readonly MissingChangeset[], base: ReleaseBase): string {
  const list = missing.map(({ name, files }) => {
    const shown = files.slice(0, 3).join(', ');
    return `  ${name}: ${shown}${files.length > 3 ? ` and ${files.length - 3} more` : ''}`;
  });
  return [
    `A published package changed since ${base.commit.slice(0, 12)} (${base.reason}) with no pending changeset naming it:`,
    ...list,
    'Run `pnpm changeset`, name each package with the bump users need and a sentence for its changelog, and commit',
    'the file in .changeset/ with the change (.changeset/README.md).',
  ].join('\n');
}
