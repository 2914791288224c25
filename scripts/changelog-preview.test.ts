import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { changesetPackages } from './changeset-check.js';
import { changelogPreview } from './changelog-preview.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pending = () =>
  readdirSync(join(root, '.changeset'))
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .sort();

describe('changelogPreview', () => {
  it('gives every package a pending changeset names its next version and changelog, and leaves the repository as it was', () => {
    const before = pending();
    const named = new Set(
      before.flatMap((file) => changesetPackages(readFileSync(join(root, '.changeset', file), 'utf8'))),
    );
    const entries = changelogPreview(root);
    expect(pending()).toEqual(before);
    for (const name of named) {
      const entry = entries.find((each) => each.name === name);
      expect(entry, `${name} is named by a pending changeset`).toBeDefined();
      expect(entry!.to).not.toBe(entry!.from);
      expect(entry!.section.startsWith(`## ${entry!.to}\n`)).toBe(true);
    }
    const first = before[0];
    if (first !== undefined) {
      const text = readFileSync(join(root, '.changeset', first), 'utf8');
      const sentence = text.split('---')[2]!.trim().split('\n')[0]!.slice(0, 40);
      const [name] = changesetPackages(text);
      expect(entries.find((each) => each.name === name)!.section).toContain(sentence);
    }
  });
});
