/**
 * `pnpm changelog:preview`: what the next release's changelogs would say, without cutting it. Runs
 * `changeset version` on a throw-away copy of the files it reads (the pending changesets, the package.json files
 * and any CHANGELOG.md), then prints each package's new version and changelog section. The repository is not
 * touched (docs/decisions/0653-changelogs-previewed-until-the-release-is-cut.md).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One package's part of the preview. */
export interface ChangelogEntry {
  readonly name: string;
  readonly from: string;
  readonly to: string;
  /** The new section of its CHANGELOG.md, from its `## <version>` heading on. */
  readonly section: string;
}

/** The files `changeset version` reads, relative to the root. */
function inputs(root: string): string[] {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '.changeset', 'packages/*/package.json'],
    { cwd: root, encoding: 'utf8' },
  );
  const manifests = (parent: string) =>
    readdirSync(join(root, parent))
      .flatMap((folder) => [`${parent}/${folder}/package.json`, `${parent}/${folder}/CHANGELOG.md`])
      .filter((path) => existsSync(join(root, path)));
  const files = listed.split('\n').filter((path) => path !== '' && existsSync(join(root, path)));
  return [
    ...new Set(['package.json', 'pnpm-workspace.yaml', ...files, ...manifests('packages'), ...manifests('examples')]),
  ];
}

const versionOf = (path: string) => String(JSON.parse(readFileSync(path, 'utf8')).version);

/** The changelog sections and version bumps the pending changesets would make, read from `root`. */
export function changelogPreview(root: string): ChangelogEntry[] {
  const copy = mkdtempSync(join(tmpdir(), 'verikit-changelog-'));
  try {
    for (const path of inputs(root)) {
      mkdirSync(dirname(join(copy, path)), { recursive: true });
      copyFileSync(join(root, path), join(copy, path));
    }
    execFileSync(join(root, 'node_modules', '.bin', 'changeset'), ['version'], { cwd: copy, stdio: 'pipe' });
    return readdirSync(join(copy, 'packages'))
      .filter((folder) => existsSync(join(copy, 'packages', folder, 'CHANGELOG.md')))
      .flatMap((folder) => {
        const manifest = JSON.parse(readFileSync(join(copy, 'packages', folder, 'package.json'), 'utf8'));
        const from = versionOf(join(root, 'packages', folder, 'package.json'));
        const to = String(manifest.version);
        if (from === to) return [];
        const changelog = readFileSync(join(copy, 'packages', folder, 'CHANGELOG.md'), 'utf8');
        const start = changelog.indexOf(`## ${to}\n`);
        const next = changelog.indexOf('\n## ', start + 1);
        const section = changelog.slice(start, next === -1 ? undefined : next).trimEnd();
        return [{ name: String(manifest.name), from, to, section }];
      });
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const entries = changelogPreview(fileURLToPath(new URL('..', import.meta.url)));
  if (entries.length === 0) console.log('No pending changesets: the next release would change nothing.');
  for (const entry of entries) console.log(`# ${entry.name} ${entry.from} -> ${entry.to}\n\n${entry.section}\n`);
}
