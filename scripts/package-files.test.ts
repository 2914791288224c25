import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/migration.md sends a user to each package's CHANGELOG.md: every published tarball ships it (npm packs a
// README and a LICENSE whatever `files` says, never a changelog). scripts/check-packages.sh checks the packed list.
const root = join(import.meta.dirname, '..');
const published = readdirSync(join(root, 'packages'))
  .map((name) => ({ name, manifest: JSON.parse(readFileSync(join(root, 'packages', name, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

describe('every published package ships its CHANGELOG.md', () => {
  it.each(published)('$name lists CHANGELOG.md in files', ({ manifest }) => {
    expect(manifest.files).toContain('CHANGELOG.md');
  });
});

describe("the README's package table", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  it.each(published.filter(({ manifest }) => !String(manifest.description).startsWith('Deprecated')))(
    'names $manifest.name',
    ({ name, manifest }) => {
      expect(readme).toContain(`| [\`${manifest.name}\`](packages/${name}/README.md) |`);
    },
  );
});
