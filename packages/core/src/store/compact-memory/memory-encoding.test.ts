import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { ExpiringMap } from './expiring-map.js';
import { decodeValue, encodeEnvelope, encodeValue, envelopeOf, RecordShapes } from './memory-encoding.js';
import { memorySections } from '../keyv-flow-store.js';

const t0 = 1_700_000_000_000;
const id = 'AAAAAAAAAAAAAAAAAAAAAA';
// What Keyv stores with `serialize: JSON.stringify`.
const keyvString = (value: unknown, expires?: number) => JSON.stringify({ value, expires });

/** Values as varied as JSON allows: every one must come back as JSON would give it back, fields in their order. */
const values: unknown[] = [
  1,
  0.5,
  -3,
  true,
  null,
  '',
  'a string',
  'ünïcode ✓',
  '{"value":1}',
  [1, 'two', null, { three: 3 }],
  {},
  { used: 1, resetAt: t0 },
  { b: 1, a: 2, 10: 'ten', 2: 'two', nested: { deep: [{ x: undefined, y: 1 }] }, gone: undefined },
  { 'a,b': 1, 'a:1': 2, '': 3, ключ: 4 },
  { schemaVersion: 1, id, kind: 'phone', version: 3, value: 's', context: { flowId: id, n: 1 }, createdAt: 1 },
  { version: 2, id: 'other', context: { flowId: 'other', version: 99 }, extra: undefined },
  { version: 2, context: 'not an object', at: new Date(t0) },
  { version: -1, context: { flowId: id } },
  { version: 1.5 },
  JSON.parse('{"__proto__":{"polluted":true},"version":1}') as unknown,
  { version: 1, context: JSON.parse('{"__proto__":1}') as unknown },
];

describe('the stored form of the memory map', () => {
  for (const asRecord of [false, true]) {
    it(`gives every value back as JSON would${asRecord ? ', stored as a flow record' : ''}`, () => {
      const shapes = new RecordShapes();
      for (const value of values) {
        for (const expires of [undefined, t0]) {
          const key = asRecord ? id : undefined;
          const stored = encodeValue(value, expires, shapes, key);
          expect(envelopeOf(stored, shapes, key)).toBe(keyvString(value, expires));
          expect(decodeValue(stored, shapes, key)).toEqual({ value: JSON.parse(JSON.stringify(value)), expires });
          expect(encodeEnvelope(keyvString(value, expires), shapes, key)).toBe(stored);
        }
      }
    });
  }

  it("checks the shape of the key's previous value before using it", () => {
    const shapes = new RecordShapes();
    for (const key of [id, undefined]) {
      for (const first of values) {
        const previous = encodeValue(first, t0, shapes, key);
        for (const value of values) {
          const stored = encodeValue(value, t0, shapes, key, previous);
          expect(envelopeOf(stored, shapes, key)).toBe(keyvString(value, t0));
        }
      }
    }
  });

  it('keeps a flow record as its values: no field names, no id, no flowId equal to the id', () => {
    const shapes = new RecordShapes();
    const record = { schemaVersion: 1, id, kind: 'phone', version: 3, context: { flowId: id, code: 'h' } };
    const stored = encodeValue(record, t0, shapes, id);
    expect(stored).toBe(`${t0.toString(36)}~[0,3,1,"phone","h"]`);
    expect(encodeValue({ ...record, version: 4 }, t0, shapes, id)).toBe(`${t0.toString(36)}~[0,4,1,"phone","h"]`);
  });

  it('keeps strings Keyv did not write, and fractional expiries, exactly as given', () => {
    const shapes = new RecordShapes();
    for (const given of [
      '{not json',
      '{"value":1,"expires":"5"}',
      '{"expires":5,"value":1}',
      keyvString(1, t0 + 0.5),
    ]) {
      expect(envelopeOf(encodeEnvelope(given, shapes, undefined), shapes, undefined)).toBe(given);
    }
    expect(() => decodeValue(encodeEnvelope('{not json', shapes, undefined), shapes, undefined)).toThrow();
  });
});

describe('the sections of the memory map', () => {
  it('keeps keyed-hash keys as bytes and gives every key back whole, other keys under a prefix included', async () => {
    const map = new ExpiringMap({ sections: memorySections });
    const keyv = new Keyv({ store: map, serialize: JSON.stringify, deserialize: JSON.parse, namespace: 'verikit' });
    const hash = '0123456789abcdef0123456789abcdef';
    const keys = [
      `route:delivery:message:${hash}`,
      'route:delivery:message:NOT-A-HASH',
      `route:delivery:message:${hash.toUpperCase()}`,
      `route:delivery:message:${hash.slice(0, 31)}g`,
      `route:delivery:message:${hash.slice(0, 31)}`,
      `route:delivery:message:ff${hash.slice(2)}`,
      `limit:sends:phone:${hash}`,
      `flow:${id}`,
      'claim:webhook:1',
    ];
    for (const [index, key] of keys.entries()) await keyv.set(key, { index }, 60_000);
    expect(map.size).toBe(keys.length);
    expect([...map.keys()].sort()).toEqual(keys.map((key) => `verikit:${key}`).sort());
    for (const [index, key] of keys.entries()) {
      expect(await keyv.get(key)).toEqual({ index });
      expect(map.has(`verikit:${key}`)).toBe(true);
    }
    expect(Object.fromEntries(map)).toEqual(Object.fromEntries([...map.entries()]));
    expect(await keyv.delete(keys[0]!)).toBe(true);
    expect(await keyv.get(keys[0]!)).toBeUndefined();
    expect(map.size).toBe(keys.length - 1);
    expect(map.sweep(Date.now() + 120_000)).toBe(keys.length - 1);
    expect(map.pendingExpiries).toBe(0);
  });
});
