import { expiresOf } from '../record-expiry.js';

/**
 * How the embedded store keeps one value in memory (docs/decisions/1350-compact-memory-records.md): not Keyv's
 * `{"value":…,"expires":…}` envelope but `<expires in base 36><tag><payload>`, the envelope re-created only when
 * Keyv (or a test) reads the map. Tags:
 *
 * - `|`: the payload is the value's JSON;
 * - `'`: the value is a string, the payload;
 * - `^`: the value is a plain object, the payload its values after the index of its shape;
 * - `~`: the payload is a flow record as a JSON array of its values, after the index of its {@link RecordShapes}
 *   shape and its version; the field names, the id (the key says it) and a context `flowId` equal to the id are
 *   not stored;
 * - `!`: the payload is a string set in the map that is no Keyv envelope of a whole expiry, kept as given.
 */
export interface DecodedValue {
  readonly value: unknown;
  readonly expires: number | undefined;
}

const plainTag = '|';
const stringTag = "'";
const recordTag = '~';
const objectTag = '^';
const rawTag = '!';

/** A field of a record shape: a plain value, the key's id, the version, or the context's fields. */
type Field = readonly [name: string, from: 'value' | 'id' | 'version' | 'context'];

interface Shape {
  readonly fields: readonly Field[];
  readonly context: readonly Field[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Whether JSON keeps a field of this value: it drops undefined, functions and symbols. */
function kept(value: unknown): boolean {
  return value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';
}

/** Where a record's field comes from when it is read back: its value, the key's id, the version, or the context. */
function fromOf(name: string, value: unknown, id: string | undefined): Field[1] {
  if (id === undefined) return 'value';
  if (name === 'id' && value === id) return 'id';
  if (name === 'version') return 'version';
  return name === 'context' && isPlainObject(value) ? 'context' : 'value';
}

/** Whether `record` has the fields of `shape`, in its order; its values are pushed on `values` meanwhile. */
function matches(shape: Shape, record: Record<string, unknown>, id: string | undefined, values: unknown[]): boolean {
  let next = 0;
  for (const name in record) {
    const value = record[name];
    if (!kept(value)) continue;
    const field = shape.fields[next++];
    const from = fromOf(name, value, id);
    if (field === undefined || field[0] !== name || field[1] !== from) return false;
    if (from === 'value') values.push(value);
    if (from !== 'context') continue;
    let innerNext = 0;
    const inner = value as Record<string, unknown>;
    for (const innerName in inner) {
      const innerValue = inner[innerName];
      if (!kept(innerValue)) continue;
      const innerField = shape.context[innerNext++];
      const innerFrom = innerName === 'flowId' && innerValue === id ? 'id' : 'value';
      if (innerField === undefined || innerField[0] !== innerName || innerField[1] !== innerFrom) return false;
      if (innerFrom === 'value') values.push(innerValue);
    }
    if (innerNext !== shape.context.length) return false;
  }
  return next === shape.fields.length;
}

/** The most shapes a map learns: the engine's contexts have a few dozen; past this, records are stored as JSON. */
const maxShapes = 4096;
/** How many recently used shapes a record without a hint is checked against before its shape is worked out. */
const recentShapes = 4;

/**
 * The field lists of the flow records one map holds, each stored once: a record then stores only its values.
 * The engine writes few shapes (one per flow kind and set of context fields).
 */
export class RecordShapes {
  readonly #index = new Map<string, number>();
  readonly #shapes: Shape[] = [];
  /** The shapes last used, most recent first: at most {@link recentShapes}. */
  readonly #recent: number[] = [];

  /**
   * The compact payload of a plain object: a flow record stored under `id` (`[shape, version, ...values]`), or
   * without `id` any other object (`[shape, ...values]`). Undefined when it is neither: it is then kept as JSON.
   * `hint` is the shape the key's previous value had: a record keeps its shape from one commit to the next, and a
   * shape is checked faster than it is found.
   */
  encode(record: unknown, id: string | undefined, hint: number | undefined): string | undefined {
    if (!isPlainObject(record) || Object.hasOwn(record, '__proto__')) return undefined;
    if (id !== undefined && !Number.isSafeInteger(record.version)) return undefined;
    const values: unknown[] = id === undefined ? [0] : [0, record.version];
    const start = values.length;
    const hinted = hint === undefined ? undefined : this.#shapes[hint];
    let index = hinted !== undefined && matches(hinted, record, id, values) ? hint : undefined;
    // A new record (no hint) most often has the shape of a recent one: checked before its shape is worked out.
    for (let recent = 0; index === undefined && recent < this.#recent.length; recent += 1) {
      values.length = start;
      const candidate = this.#recent[recent]!;
      if (candidate !== hint && matches(this.#shapes[candidate]!, record, id, values)) index = candidate;
    }
    if (index === undefined) {
      values.length = start;
      index = this.#learn(record, id, values);
      if (index === undefined) return undefined;
    }
    if (this.#recent[0] !== index) {
      const at = this.#recent.indexOf(index);
      if (at !== -1) this.#recent.splice(at, 1);
      else if (this.#recent.length === recentShapes) this.#recent.pop();
      this.#recent.unshift(index);
    }
    values[0] = index;
    return JSON.stringify(values);
  }

  /** The index of the shape of `record`, learnt if new, its values pushed on `values`; undefined past the cap. */
  #learn(record: Record<string, unknown>, id: string | undefined, values: unknown[]): number | undefined {
    const fields: Field[] = [];
    const context: Field[] = [];
    let signature = '';
    for (const name of Object.keys(record)) {
      const value = record[name];
      if (!kept(value)) continue;
      const from = fromOf(name, value, id);
      fields.push([name, from]);
      signature += `${from}${name.length}:${name}`;
      if (from === 'value') values.push(value);
      if (from !== 'context') continue;
      const inner = value as Record<string, unknown>;
      // `context.__proto__ = …` would set a prototype, not a field: such a record stays JSON.
      if (Object.hasOwn(inner, '__proto__')) return undefined;
      signature += '{';
      for (const innerName of Object.keys(inner)) {
        const innerValue = inner[innerName];
        if (!kept(innerValue)) continue;
        const innerFrom = innerName === 'flowId' && innerValue === id ? 'id' : 'value';
        context.push([innerName, innerFrom]);
        signature += `${innerFrom}${innerName.length}:${innerName}`;
        if (innerFrom === 'value') values.push(innerValue);
      }
      signature += '}';
    }
    let index = this.#index.get(signature);
    if (index === undefined) {
      if (this.#shapes.length >= maxShapes) return undefined;
      index = this.#shapes.length;
      this.#shapes.push({ fields, context });
      this.#index.set(signature, index);
    }
    return index;
  }

  /** The object `encode` stored (under `id`, for a flow record), with its fields in their order. */
  decode(payload: string, id: string | undefined): Record<string, unknown> {
    const values = JSON.parse(payload) as unknown[];
    const shape = this.#shapes[values[0] as number];
    if (shape === undefined) throw new Error('a stored object names a shape this map does not know');
    let next = id === undefined ? 1 : 2;
    const record: Record<string, unknown> = {};
    for (const [name, from] of shape.fields) {
      if (from === 'id') record[name] = id;
      else if (from === 'version') record[name] = values[1];
      else if (from === 'value') record[name] = values[next++];
      else {
        const context: Record<string, unknown> = {};
        for (const [inner, innerFrom] of shape.context) context[inner] = innerFrom === 'id' ? id : values[next++];
        record[name] = context;
      }
    }
    return record;
  }
}

/** Where the expiry ends and the tag is: base-36 digits, then one of the tags. */
function tagAt(stored: string): number {
  for (let index = 0; index < stored.length; index += 1) {
    const code = stored.charCodeAt(index);
    if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 122))) return index;
  }
  return stored.length;
}

/** When a stored value expires (ms since epoch), or undefined when it never does. */
export function storedExpiry(stored: string | undefined): number | undefined {
  if (stored === undefined) return undefined;
  if (stored.startsWith(rawTag)) return expiresOf(stored.slice(1));
  const at = tagAt(stored);
  return at === 0 ? undefined : parseInt(stored.slice(0, at), 36);
}

/** Whether `expires` can be written in base 36 (Keyv's own are whole ms; a fraction is kept in a raw envelope). */
function wholeExpiry(expires: unknown): expires is number | undefined {
  return expires === undefined || (Number.isSafeInteger(expires) && (expires as number) >= 0);
}

/**
 * The stored form of `value` expiring at `expires`; `id` is the key's id when the value is to be kept as a flow
 * record, `shapes` the map's record shapes.
 */
export function encodeValue(
  value: unknown,
  expires: number | undefined,
  shapes: RecordShapes,
  id: string | undefined,
  previous?: string,
): string {
  if (!wholeExpiry(expires)) return `${rawTag}${JSON.stringify({ value, expires })}`;
  const prefix = expires === undefined ? '' : expires.toString(36);
  const compact = shapes.encode(value, id, shapeOf(previous));
  if (compact !== undefined) return `${prefix}${id === undefined ? objectTag : recordTag}${compact}`;
  if (typeof value === 'string') return `${prefix}${stringTag}${value}`;
  const json = JSON.stringify(value) as string | undefined;
  // `keyv.set(key, undefined)` stores an envelope without a value: kept as given.
  if (json === undefined) return `${rawTag}${JSON.stringify({ value, expires })}`;
  return `${prefix}${plainTag}${json}`;
}

/** The stored form of a string Keyv (or anyone) set in the map: a Keyv envelope is encoded, anything else kept. */
export function encodeEnvelope(given: string, shapes: RecordShapes, id: string | undefined, previous?: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(given);
  } catch {
    return `${rawTag}${given}`;
  }
  if (!isPlainObject(parsed) || !('value' in parsed)) return `${rawTag}${given}`;
  const keys = Object.keys(parsed);
  const envelopeKeys = keys.length === 1 || (keys.length === 2 && keys[1] === 'expires');
  if (keys[0] !== 'value' || !envelopeKeys || !wholeExpiry(parsed.expires)) return `${rawTag}${given}`;
  return encodeValue(parsed.value, parsed.expires, shapes, id, previous);
}

/** The object a `~` or `^` payload holds: only a flow record's id comes from the key. */
function decoded(shapes: RecordShapes, tag: string | undefined, payload: string, id: string | undefined): unknown {
  return shapes.decode(payload, tag === recordTag ? (id ?? '') : undefined);
}

/** The shape index a compact stored value names (`[<shape>,…`), if it is one. */
function shapeOf(stored: string | undefined): number | undefined {
  if (stored === undefined) return undefined;
  const at = tagAt(stored);
  if (stored[at] !== recordTag && stored[at] !== objectTag) return undefined;
  const shape = parseInt(stored.slice(at + 2, at + 8), 10);
  return Number.isNaN(shape) ? undefined : shape;
}

/** The value and expiry a stored string holds. Throws when a raw string is no JSON envelope. */
export function decodeValue(stored: string, shapes: RecordShapes, id: string | undefined): DecodedValue {
  if (stored.startsWith(rawTag)) {
    const envelope = JSON.parse(stored.slice(1)) as { value?: unknown; expires?: number } | null;
    return { value: envelope?.value, expires: expiresOf(stored.slice(1)) };
  }
  const at = tagAt(stored);
  const expires = at === 0 ? undefined : parseInt(stored.slice(0, at), 36);
  const payload = stored.slice(at + 1);
  const tag = stored[at];
  const value =
    tag === stringTag
      ? payload
      : tag === plainTag
        ? (JSON.parse(payload) as unknown)
        : decoded(shapes, tag, payload, id);
  return { value, expires };
}

/** The string Keyv stored for this value: `JSON.stringify({ value, expires })`, re-created. */
export function envelopeOf(stored: string, shapes: RecordShapes, id: string | undefined): string {
  if (stored.startsWith(rawTag)) return stored.slice(1);
  const at = tagAt(stored);
  const expires = at === 0 ? '' : `,"expires":${parseInt(stored.slice(0, at), 36)}`;
  const tag = stored[at];
  const payload = stored.slice(at + 1);
  const json =
    tag === stringTag
      ? JSON.stringify(payload)
      : tag === plainTag
        ? payload
        : JSON.stringify(decoded(shapes, tag, payload, id));
  return `{"value":${json}${expires}}`;
}

/** Where the digits of `stored` from `from` on end (`from` itself when there is none). */
function digitsEnd(stored: string, from: number): number {
  let end = from;
  while (end < stored.length && stored.charCodeAt(end) >= 48 && stored.charCodeAt(end) <= 57) end += 1;
  return end;
}

/**
 * The version of a compact record `[shape,version,…]` whose `[` is at `from`, read without a regular expression:
 * the digits after the first comma, ended by a comma or `]`. Undefined for any other front.
 */
function frontVersion(stored: string, from: number): number | undefined {
  if (stored.charCodeAt(from) !== 91) return undefined; // [
  const shapeEnd = digitsEnd(stored, from + 1);
  if (shapeEnd === from + 1 || stored.charCodeAt(shapeEnd) !== 44) return undefined; // ,
  const versionEnd = digitsEnd(stored, shapeEnd + 1);
  const after = stored.charCodeAt(versionEnd);
  if (versionEnd === shapeEnd + 1 || (after !== 44 && after !== 93)) return undefined; // , or ]
  return Number(stored.slice(shapeEnd + 1, versionEnd));
}

/** The top-level version of a stored flow record (0: none), read from the front of a compact record. */
export function storedVersion(stored: string | undefined, shapes: RecordShapes, id: string): number {
  if (stored === undefined) return 0;
  const at = tagAt(stored);
  if (stored[at] === recordTag) {
    const version = frontVersion(stored, at + 1);
    if (version !== undefined) return version;
  }
  const { value } = decodeValue(stored, shapes, id);
  const version = isPlainObject(value) ? value.version : undefined;
  return typeof version === 'number' ? version : 0;
}
