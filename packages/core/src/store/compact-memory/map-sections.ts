const oneByte = /^[^\u0100-\uffff]*$/;

/**
 * A key as one flat string. Keys arrive built in pieces (`verikit:` + `flow:` + id), which V8 keeps
 * as a chain of strings even once flattened, and a key's part after a section's prefix is a slice that
 * would keep the whole key: a flat copy holds only its own characters (`pnpm bench engine`). Only keys of
 * one-byte characters are copied, through latin1, which maps each of them to itself; others are kept as given.
 */
export function flatKey(key: string): string {
  return oneByte.test(key) ? Buffer.from(key, 'latin1').toString('latin1') : key;
}

/** One part of the map: the keys under one prefix, kept without it, and their expiry buckets. */
export interface Section {
  /** What every key of the section starts with (`''`: every key no other section takes). */
  readonly prefix: string;
  /** Whether values are kept as flow records, their id being the key after the prefix. */
  readonly records: boolean;
  /** Whether keys are 32 hex digits (a keyed hash), kept as their 16 bytes; the section takes no other key. */
  readonly hex: boolean;
  /** Values in their stored form (memory-encoding.ts), by key without the prefix. */
  readonly entries: Map<string, string>;
  /** Keys (without the prefix) by the slot (`floor(expires / slotMs)`) they come due in. */
  readonly buckets: Map<number, string[]>;
}

/** The whole key of `inner` in `section`. */
export function keyOf(section: Section, inner: string): string {
  return section.prefix + (section.hex ? Buffer.from(inner, 'latin1').toString('hex') : inner);
}

/** A prefix under which an `ExpiringMap` keeps keys apart, and whether their values are flow records. */
export interface MapSection {
  readonly prefix: string;
  readonly records?: boolean;
  readonly hex?: boolean;
}

const hexKey = /^[0-9a-f]{32}$/;

/** The sections of a map: those given, longest prefix first, then one of prefix `''` for every other key. */
export function sectionsOf(given: readonly MapSection[]): readonly Section[] {
  return [...given.filter((section) => section.prefix !== ''), { prefix: '' }]
    .sort((a, b) => b.prefix.length - a.prefix.length)
    .map(({ prefix, records, hex }) => ({
      prefix,
      records: records === true,
      hex: hex === true,
      entries: new Map(),
      buckets: new Map(),
    }));
}

/** The section `key` belongs to, and the key as that section keeps it (without the prefix, a hash as bytes). */
export function locate(sections: readonly Section[], key: string): [Section, string] {
  for (const section of sections) {
    if (!key.startsWith(section.prefix)) continue;
    const inner = key.slice(section.prefix.length);
    if (!section.hex) return [section, inner];
    if (hexKey.test(inner)) return [section, Buffer.from(inner, 'hex').toString('latin1')];
  }
  throw new Error('unreachable: the last section takes every key');
}
