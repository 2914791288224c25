import {
  decodeValue,
  encodeEnvelope,
  encodeValue,
  envelopeOf,
  RecordShapes,
  storedExpiry,
  storedVersion,
  type DecodedValue,
} from './memory-encoding.js';

const oneByte = /^[^\u0100-\uffff]*$/;

/**
 * A key as one flat string. Keys arrive built in pieces (`verikit:` + `flow:` + id), which V8 keeps
 * as a chain of strings even once flattened, and a key's part after a section's prefix is a slice that
 * would keep the whole key: a flat copy holds only its own characters (`pnpm bench engine`). Only keys of
 * one-byte characters are copied, through latin1, which maps each of them to itself; others are kept as given.
 */
function flatKey(key: string): string {
  return oneByte.test(key) ? Buffer.from(key, 'latin1').toString('latin1') : key;
}

/** One part of the map: the keys under one prefix, kept without it, and their expiry buckets. */
interface Section {
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
function keyOf(section: Section, inner: string): string {
  return section.prefix + (section.hex ? Buffer.from(inner, 'latin1').toString('hex') : inner);
}

/** A prefix under which an `ExpiringMap` keeps keys apart, and whether their values are flow records. */
export interface MapSection {
  readonly prefix: string;
  readonly records?: boolean;
  readonly hex?: boolean;
}

/** The value of a lower-case hex digit's character code, or -1 for any other character. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  return code >= 97 && code <= 102 ? code - 87 : -1;
}

/** The 16 character codes a key of 32 lower-case hex digits is read into (one array, reused). */
const hexBytes: number[] = new Array<number>(16).fill(0);

/**
 * The 16 bytes of a key of 32 lower-case hex digits as a string of 16 one-byte characters, or undefined when it is
 * not such a key. Made with `String.fromCharCode` (a new flat string of its own, no `Buffer`): the same string as
 * `Buffer.from(key, 'hex').toString('latin1')` for such a key.
 */
function hexBytesOf(key: string): string | undefined {
  if (key.length !== 32) return undefined;
  for (let index = 0; index < 16; index += 1) {
    const high = hexDigit(key.charCodeAt(2 * index));
    const low = hexDigit(key.charCodeAt(2 * index + 1));
    if (high < 0 || low < 0) return undefined;
    hexBytes[index] = (high << 4) | low;
  }
  return String.fromCharCode.apply(null, hexBytes);
}

/** The sections of a map: those given, longest prefix first, then one of prefix `''` for every other key. */
function sectionsOf(given: readonly MapSection[]): readonly Section[] {
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
function locate(sections: readonly Section[], key: string): [Section, string] {
  for (const section of sections) {
    if (!key.startsWith(section.prefix)) continue;
    const inner = key.slice(section.prefix.length);
    if (!section.hex) return [section, inner];
    const bytes = hexBytesOf(inner);
    if (bytes !== undefined) return [section, bytes];
  }
  throw new Error('unreachable: the last section takes every key');
}

/** Knobs of an {@link ExpiringMap}; the defaults suit production, tests inject `now`. */
export interface ExpiringMapOptions {
  /**
   * The clock records expire by: the timer sweeps by it, and `write` and `readLive` stamp and check expiries with it.
   * Default `Date.now()`, read at each call. Keyv stamps and checks what goes through its own `set` and `get` with `Date.now()`, so a map
   * given another clock suits a store that writes and reads through the map (the memory `KeyvFlowStore` does): a test
   * moves that clock to let a claim or a flow lapse without waiting.
   */
  readonly now?: () => number;
  /** The width of one expiry bucket, and the pause between two timer sweeps (ms). Default 1000. */
  readonly slotMs?: number;
  /**
   * The most bucket entries one timer sweep looks at before yielding to other work; the rest are
   * swept right after, so a wave of expiries never blocks the event loop for long. Default 10,000.
   */
  readonly sweepBudget?: number;
  /**
   * Prefixes whose keys are kept apart, without the prefix, each in a map of its own: a key holds only what
   * follows its prefix. Default none: every key in one map.
   */
  readonly sections?: readonly MapSection[];
}

/**
 * The `Map` under the embedded Keyv, which drops expired records without their being read. Keyv
 * deletes an expired key only when something reads it, so flows, routes, limits and webhook markers
 * that nobody reads again would stay forever (docs/decisions/0020-expiring-memory-store.md).
 *
 * Every write of a record with an expiry files its key in the bucket of the time slot it expires
 * in; a sweep walks only the buckets whose slot has passed, so its work is the number of entries
 * filed there, never the size of the map. Before deleting, the sweep reads the record's current
 * expiry: a key written again with a later expiry is filed anew rather than deleted. Sweeps run on
 * an unref'd timer that holds the map only weakly: it never keeps the process, nor a map nobody
 * uses, alive, and it stops while nothing waits to expire.
 *
 * Values are kept in a compact form, not as the `{"value":…,"expires":…}` string Keyv hands over: `get` and
 * iteration give that string back, re-created (docs/decisions/1350-compact-memory-records.md). The store reads and
 * writes values themselves through `read`, `write` and `liveVersionAt`.
 */
export class ExpiringMap extends Map<string, string> {
  /** The sections, longest prefix first; the last one, prefix `''`, takes every other key. */
  readonly #sections: readonly Section[];
  readonly #shapes = new RecordShapes();
  readonly #now: () => number;
  readonly #slotMs: number;
  readonly #sweepBudget: number;
  readonly #self = new WeakRef(this);
  /**
   * The section of flow records (`records: true`) when no other section's prefix extends its prefix: every key of
   * its prefix and an id is then that id in it, which the `…Record` methods find without building the key.
   */
  readonly #records: Section | undefined;
  /** The key last located, and where: a write after its read (a compare-and-set, a count) locates it once. */
  #locatedKey: string | undefined;
  #located: [Section, string] | undefined;
  /** Every slot before this one has been swept. */
  #nextSlot: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ExpiringMapOptions = {}) {
    super();
    // Read at each call, not kept: a test that fakes `Date` after the map was made moves its clock too.
    this.#now = options.now ?? (() => Date.now());
    this.#slotMs = options.slotMs ?? 1000;
    this.#sweepBudget = options.sweepBudget ?? 10_000;
    this.#nextSlot = Math.floor(this.#now() / this.#slotMs);
    this.#sections = sectionsOf(options.sections ?? []);
    const records = this.#sections.filter((section) => section.records);
    const prefix = records[0]?.prefix;
    const extended = this.#sections.some((section) => section !== records[0] && section.prefix.startsWith(prefix!));
    this.#records = records.length === 1 && !extended ? records[0] : undefined;
  }

  /** Keyv's `{"value":…,"expires":…}` string for `key`, re-created from the stored form. */
  override get(key: string): string | undefined {
    const [section, inner] = this.#locate(key);
    const stored = section.entries.get(inner);
    return stored === undefined ? undefined : envelopeOf(stored, this.#shapes, this.#idOf(section, inner));
  }

  /** Stores what Keyv sets (its `{"value":…,"expires":…}` string); any other string is kept as given. */
  override set(key: string, value: string): this {
    const [section, inner, previous] = this.#place(key);
    const stored = encodeEnvelope(value, this.#shapes, this.#idOf(section, inner), previous);
    this.#store(section, inner, previous, stored, null);
    return this;
  }

  /** The value and expiry stored under `key`, expired or not; throws when what is stored is no JSON. */
  read(key: string): DecodedValue | undefined {
    const [section, inner] = this.#locate(key);
    const stored = section.entries.get(inner);
    return stored === undefined ? undefined : decodeValue(stored, this.#shapes, this.#idOf(section, inner));
  }

  /**
   * Stores `value` under `key` as `keyv.set(key, value, ttlMs)` would: expiring `ttlMs` from now (the map's clock,
   * `Date.now()` like Keyv's unless given another), never when `ttlMs` is undefined or 0.
   */
  write(key: string, value: unknown, ttlMs: number | undefined): void {
    const [section, inner, previous] = this.#place(key);
    this.#writeAt(section, inner, previous, value, ttlMs);
  }

  /** True when `expires` (ms since epoch; undefined: never) has passed by the map's clock. */
  isPast(expires: number | undefined): boolean {
    return expires !== undefined && this.#now() > expires;
  }

  /**
   * The top-level `version` of the live flow record under `key` (0: none), read without decoding the record; a
   * record past its expiry (by the map's clock) is deleted and reads as none, as `keyv.get` does. One look-up.
   */
  liveVersionAt(key: string): number {
    const [section, inner] = this.#locate(key);
    return this.#liveVersionIn(section, inner);
  }

  /**
   * {@link liveVersionAt} of the flow record `id` (the key of the records section's prefix and `id`), without building
   * the key: a compare-and-set's check reads it so, and {@link writeRecord} writes it.
   */
  liveRecordVersion(id: string): number {
    return this.#liveVersionIn(this.#recordsSection(), id);
  }

  /** {@link liveVersionAt} of the entry `inner` of `section`. */
  #liveVersionIn(section: Section, inner: string): number {
    const stored = section.entries.get(inner);
    if (stored === undefined) return 0;
    if (this.isPast(storedExpiry(stored))) {
      section.entries.delete(inner);
      return 0;
    }
    return storedVersion(stored, this.#shapes, inner);
  }

  /**
   * {@link write} of the flow record `id`, without building its key. A new key is kept as the id given, not copied:
   * the engine's ids are strings of their own (a generated id, or one this map gave back).
   */
  writeRecord(id: string, record: unknown, ttlMs: number | undefined): void {
    const section = this.#recordsSection();
    this.#writeAt(section, id, section.entries.get(id), record, ttlMs);
  }

  /** {@link read} of the flow record `id`, without building its key. */
  readRecord(id: string): DecodedValue | undefined {
    const stored = this.#recordsSection().entries.get(id);
    return stored === undefined ? undefined : decodeValue(stored, this.#shapes, id);
  }

  /** Deletes the flow record `id`. */
  deleteRecord(id: string): boolean {
    return this.#recordsSection().entries.delete(id);
  }

  override has(key: string): boolean {
    const [section, inner] = this.#locate(key);
    return section.entries.has(inner);
  }

  override delete(key: string): boolean {
    const [section, inner] = this.#locate(key);
    return section.entries.delete(inner);
  }

  override get size(): number {
    let size = 0;
    for (const section of this.#sections) size += section.entries.size;
    return size;
  }

  override *keys(): MapIterator<string> {
    for (const section of this.#sections) for (const inner of section.entries.keys()) yield keyOf(section, inner);
  }

  override *values(): MapIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  override *entries(): MapIterator<[string, string]> {
    for (const section of this.#sections) {
      for (const [inner, stored] of section.entries) {
        yield [keyOf(section, inner), envelopeOf(stored, this.#shapes, this.#idOf(section, inner))];
      }
    }
  }

  override [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  override forEach(callback: (value: string, key: string, map: Map<string, string>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  override clear(): void {
    for (const section of this.#sections) {
      section.entries.clear();
      section.buckets.clear();
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** How many keys wait in expiry buckets (a key may wait in two until the first comes due). */
  get pendingExpiries(): number {
    let count = 0;
    for (const section of this.#sections) for (const bucket of section.buckets.values()) count += bucket.length;
    return count;
  }

  /**
   * Deletes the records that expired before `now` in the buckets whose slot has passed (the slots before the
   * one `now` falls in), looking at no more than `budget` of their entries. A record written with an expiry in a
   * slot already swept waits in the first slot not yet swept, so a second sweep within that slot deletes nothing.
   * The timer calls it; tests and benches call it with an explicit `now`. Returns how many records it deleted.
   */
  sweep(now: number = this.#now(), budget = Number.POSITIVE_INFINITY): number {
    const due = Math.floor(now / this.#slotMs);
    let deleted = 0;
    let looked = 0;
    while (this.#nextSlot < due && looked < budget) {
      const slot = this.#nextSlot;
      let left = false;
      let filed = false;
      for (const section of this.#sections) {
        const bucket = section.buckets.get(slot);
        if (bucket === undefined) continue;
        filed = true;
        while (bucket.length > 0 && looked < budget) {
          const key = bucket.pop()!;
          looked += 1;
          const expires = storedExpiry(section.entries.get(key));
          if (expires === undefined) continue; // deleted, or written again without an expiry
          if (expires < now) {
            section.entries.delete(key);
            deleted += 1;
          } else {
            this.#file(section, key, this.#slotFor(expires)); // written again with a later expiry
          }
        }
        if (bucket.length === 0) section.buckets.delete(slot);
        else left = true;
      }
      if (!filed) this.#nextSlot = this.#nextFiledSlot(due);
      else if (!left) this.#nextSlot += 1;
    }
    return deleted;
  }

  #recordsSection(): Section {
    if (this.#records === undefined) throw new Error('this map keeps no section of flow records');
    return this.#records;
  }

  /** {@link write} of `value` under `inner` in `section`, over what is stored there (`previous`). */
  #writeAt(
    section: Section,
    inner: string,
    previous: string | undefined,
    value: unknown,
    ttlMs: number | undefined,
  ): void {
    const expires = ttlMs === undefined || ttlMs === 0 ? undefined : this.#now() + ttlMs;
    const stored = encodeValue(value, expires, this.#shapes, this.#idOf(section, inner), previous);
    // Stored as given when whole (a fraction is kept in a raw envelope, read back from it).
    const known = expires === undefined || (Number.isSafeInteger(expires) && expires >= 0) ? expires : null;
    this.#store(section, inner, previous, stored, known);
  }

  /** {@link locate} in this map's sections, the last key's answer kept. */
  #locate(key: string): [Section, string] {
    if (key !== this.#locatedKey || this.#located === undefined) {
      this.#located = locate(this.#sections, key);
      this.#locatedKey = key;
    }
    return this.#located;
  }

  /** The flow id a value under `inner` is stored for, when its section keeps flow records. */
  #idOf(section: Section, inner: string): string | undefined {
    return section.records ? inner : undefined;
  }

  /**
   * Where `key` is kept: its section, the key as kept there and what is stored under it. A new key is kept as a flat
   * copy: the map and the expiry bucket hold the same string, and a hex section's key is a string of its own already.
   */
  #place(key: string): [Section, string, string | undefined] {
    const [section, given] = this.#locate(key);
    const previous = section.entries.get(given);
    return [section, previous === undefined && !section.hex ? flatKey(given) : given, previous];
  }

  /**
   * Stores `stored` under `inner` in `section` over `previous`, and files the key by its expiry: `known`, the expiry
   * `stored` holds, or null to read it from `stored`.
   */
  #store(
    section: Section,
    inner: string,
    previous: string | undefined,
    stored: string,
    known: number | undefined | null,
  ): void {
    section.entries.set(inner, stored);
    const expires = known === null ? storedExpiry(stored) : known;
    if (expires === undefined) return;
    const slot = this.#slotFor(expires);
    // A key filed no later than this slot is still filed (a sweep files it again when it finds a
    // later expiry), so rewriting a record with the same or a later expiry files nothing more.
    const previousExpires = storedExpiry(previous);
    if (previousExpires === undefined || this.#slotFor(previousExpires) > slot) this.#file(section, inner, slot);
  }

  #slotFor(expires: number): number {
    // A slot already swept would never be looked at again: file such a key in the next one.
    return Math.max(Math.floor(expires / this.#slotMs), this.#nextSlot);
  }

  #bucketCount(): number {
    let count = 0;
    for (const section of this.#sections) count += section.buckets.size;
    return count;
  }

  /** The slot after #nextSlot to look at: the next one, or after a long pause the lowest filed one. */
  #nextFiledSlot(due: number): number {
    if (due - this.#nextSlot <= this.#bucketCount()) return this.#nextSlot + 1;
    let lowest = due;
    for (const section of this.#sections) for (const slot of section.buckets.keys()) if (slot < lowest) lowest = slot;
    return lowest;
  }

  #file(section: Section, key: string, slot: number): void {
    let bucket = section.buckets.get(slot);
    if (bucket === undefined) {
      bucket = [];
      section.buckets.set(slot, bucket);
    }
    bucket.push(key);
    if (this.#timer === undefined) this.#schedule(this.#slotMs);
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(ExpiringMap.#onTimer, delayMs, this.#self);
    // A number on workerd and in browsers, which have no process to keep alive.
    (this.#timer as { unref?: () => unknown }).unref?.();
  }

  /** Static, and given a WeakRef: a pending timer must not hold the map. */
  static #onTimer(self: WeakRef<ExpiringMap>): void {
    const map = self.deref();
    if (map === undefined) return;
    const now = map.#now();
    map.sweep(now, map.#sweepBudget);
    map.#timer = undefined;
    if (map.#bucketCount() === 0) return;
    // Budget spent with slots still due: go on right after other work has had its turn.
    map.#schedule(map.#nextSlot < Math.floor(now / map.#slotMs) ? 0 : map.#slotMs);
  }
}

/** Deletes the value under `key` when its expiry has passed (by the map's clock), as `keyv.get` does; true when it did. */
function expired(map: ExpiringMap, key: string, expires: number | undefined): boolean {
  if (!map.isPast(expires)) return false;
  map.delete(key);
  return true;
}

/**
 * The value stored under `key` in the embedded map, read as `keyv.get` would: a value past its expiry is deleted
 * and reads as absent. Read straight from the map, it skips Keyv's hooks, statistics and promises
 * (docs/decisions/0500-flow-records-read-from-the-memory-map.md).
 */
export function readLive<T>(map: ExpiringMap, key: string): T | undefined {
  const stored = map.read(key);
  if (stored === undefined || expired(map, key, stored.expires)) return undefined;
  return stored.value as T;
}

/** The version of the live flow record under `key` (0: none), read without decoding the record. */
export function liveVersion(map: ExpiringMap, key: string): number {
  return map.liveVersionAt(key);
}
