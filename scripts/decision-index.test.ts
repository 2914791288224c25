/**
 * docs/decisions/README.md against the decision files: every record listed once, no link to a file that is not
 * there, a record whose own opening says it was superseded marked so in the index (naming the same records), and the
 * "Read these first" list made of records that still hold.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const folder = fileURLToPath(new URL('../docs/decisions/', import.meta.url));
const index = readFileSync(join(folder, 'README.md'), 'utf8');
const records = readdirSync(folder)
  .filter((name) => /^\d{4}-.+\.md$/.test(name))
  .sort();

/** The numbers a piece of text links to, as `[NNNN](NNNN-….md)`. */
function linkedNumbers(text: string): string[] {
  return [...text.matchAll(/\]\((\d{4})-[^)]*\.md\)/g)].map((match) => match[1]!);
}

/**
 * What a record says of itself before its context: `full` for "Superseded by", `part` for "Superseded in part by" or
 * "Partly superseded by", with the records it names; undefined for a record that holds.
 */
function supersededNote(record: string): { kind: 'full' | 'part'; by: string[] } | undefined {
  const opening = record
    .split(/\*\*Context\b/)[0]!
    .split('\n')
    .slice(1)
    .join('\n');
  const note = /(\bpartly superseded\b|\bsuperseded in part\b|\bsuperseded\b)[^\n]*(?:\n(?!\n)[^\n]*)*/i.exec(opening);
  if (note === null) return undefined;
  const kind = /partly|in part/i.test(note[1]!) ? 'part' : 'full';
  return { kind, by: linkedNumbers(note[0]) };
}

/** The mark an index line gives a record: `(superseded by …)` or `(partly superseded by …)`. */
function indexMark(line: string): { kind: 'full' | 'part'; by: string[] } | undefined {
  const mark = /\((partly )?superseded by ([^\n]*)\)\s*$/.exec(line);
  if (mark === null) return undefined;
  return { kind: mark[1] === undefined ? 'full' : 'part', by: linkedNumbers(mark[2]!) };
}

const allSection = index.split(/^## All decisions$/m)[1] ?? '';
const firstSection = (index.split(/^## Read these first$/m)[1] ?? '').split(/^## /m)[0]!;
const lineOf = new Map(
  allSection
    .split('\n')
    .filter((line) => line.startsWith('- ['))
    .map((line) => [/\]\((\d{4}-[^)]+\.md)\)/.exec(line)?.[1] ?? '', line]),
);

describe('the decision index', () => {
  it('lists every decision record once under "All decisions", and links to no file that is missing', () => {
    const listed = [...allSection.matchAll(/^- \[\d{4}[^\]]*\]\((\d{4}-[^)]+\.md)\)/gm)].map((match) => match[1]!);
    expect(listed.filter((name, at) => listed.indexOf(name) !== at)).toEqual([]);
    expect(records.filter((name) => !listed.includes(name))).toEqual([]);
    const linked = [...index.matchAll(/\]\((\d{4}-[^)]+\.md)\)/g)].map((match) => match[1]!);
    expect(linked.filter((name) => !records.includes(name))).toEqual([]);
  });

  it('marks each superseded record as its file does, naming the records that replace it', () => {
    const wrong: string[] = [];
    for (const name of records) {
      const note = supersededNote(readFileSync(join(folder, name), 'utf8'));
      const mark = indexMark(lineOf.get(name) ?? '');
      if (JSON.stringify(note) !== JSON.stringify(mark))
        wrong.push(`${name}: the file says ${JSON.stringify(note)}, the index ${JSON.stringify(mark)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('starts with a short "Read these first" list of records that still hold', () => {
    const first = [...new Set(linkedNumbers(firstSection))];
    expect(first.length).toBeGreaterThanOrEqual(5);
    expect(first.length).toBeLessThanOrEqual(15);
    for (const number of first) {
      const name = records.find((record) => record.startsWith(`${number}-`));
      expect(name, `${number} is in "Read these first" but has no file`).toBeDefined();
      expect(supersededNote(readFileSync(join(folder, name!), 'utf8'))?.kind, `${name} is superseded`).not.toBe('full');
    }
  });
});

describe('supersededNote and indexMark', () => {
  it('read a full and a partial note alike in a file and in the index', () => {
    expect(supersededNote('# 0006 x\n\n> Superseded by [0009](0009-a.md).\n\n**Context.** y')).toEqual({
      kind: 'full',
      by: ['0009'],
    });
    expect(
      supersededNote(
        '# 1 x\n\n**Superseded in part by [1320](1320-a.md) and\n[1510](1510-b.md):** z\n\n**Context.** y',
      ),
    ).toEqual({ kind: 'part', by: ['1320', '1510'] });
    expect(supersededNote('# 1280 `superseded` in a title\n\n**Context.** superseded later')).toBeUndefined();
    expect(indexMark('- [0006 x](0006-a.md) (superseded by [0009](0009-b.md))')).toEqual({
      kind: 'full',
      by: ['0009'],
    });
    expect(indexMark('- [1311 x](1311-a.md) (partly superseded by [1561](1561-b.md))')).toEqual({
      kind: 'part',
      by: ['1561'],
    });
    expect(indexMark('- [1280 x, `superseded`](1280-a.md)')).toBeUndefined();
  });
});
