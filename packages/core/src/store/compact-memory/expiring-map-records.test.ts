import { describe, expect, it } from 'vitest';
import type { FlowRecord } from '../flow-store.js';
import { createMemoryKeyv, KeyvFlowStore } from '../keyv-flow-store.js';
import { ExpiringMap, liveVersion, readLive } from './expiring-map.js';

const record: FlowRecord = {
  schemaVersion: 1,
  id: 'AAAAAAAAAAAAAAAAAAAAAA',
  kind: 'phone',
  version: 3,
  value: 'awaiting-code',
  context: { flowId: 'AAAAAAAAAAAAAAAAAAAAAA', version: 99, attemptsLeft: 4 },
  createdAt: 1,
  updatedAt: 2,
};

describe('flow records in the memory map', () => {
  it('gives Keyv the string it writes, and reads what Keyv wrote', async () => {
    const keyv = createMemoryKeyv();
    const store = new KeyvFlowStore(keyv);
    const before = Date.now();
    expect(await store.compareAndSetFlow(record, 0, 60_000)).toBe(true);
    expect(await keyv.get('flow:AAAAAAAAAAAAAAAAAAAAAA')).toEqual(record);
    const map = keyv.store as Map<string, string>;
    const stored = JSON.parse(map.get('verikit:flow:AAAAAAAAAAAAAAAAAAAAAA')!) as { value: unknown; expires: number };
    expect(Object.keys(stored)).toEqual(['value', 'expires']);
    expect(JSON.stringify(stored.value)).toBe(JSON.stringify(record)); // the same fields in the same order
    expect(stored.expires).toBeGreaterThanOrEqual(before + 60_000);
    expect(stored.expires).toBeLessThanOrEqual(Date.now() + 60_000);
    const other = { ...record, id: 'BBBBBBBBBBBBBBBBBBBBBB' };
    await keyv.set('flow:BBBBBBBBBBBBBBBBBBBBBB', other, 60_000);
    expect(await store.getFlow('BBBBBBBBBBBBBBBBBBBBBB')).toEqual(other);
    expect(await store.compareAndSetFlow({ ...other, version: 4 }, 3, 60_000)).toBe(true);
    expect(await keyv.get('flow:BBBBBBBBBBBBBBBBBBBBBB')).toEqual({ ...other, version: 4 });
  });

  it('reads the top-level version, never a version inside the context', async () => {
    const keyv = createMemoryKeyv();
    const map = keyv.store as ExpiringMap;
    await new KeyvFlowStore(keyv).compareAndSetFlow(record, 0, 1000);
    expect(liveVersion(map, 'verikit:flow:AAAAAAAAAAAAAAAAAAAAAA')).toBe(3);
    expect(liveVersion(map, 'verikit:flow:nothing')).toBe(0);
  });

  it('reads the version of records written in another field order, or with no version', async () => {
    const keyv = createMemoryKeyv();
    const map = keyv.store as ExpiringMap;
    await keyv.set('flow:x', { context: { version: 99 }, version: 7, id: 'x' });
    expect(liveVersion(map, 'verikit:flow:x')).toBe(7);
    await keyv.set('flow:y', { value: null });
    expect(liveVersion(map, 'verikit:flow:y')).toBe(0);
  });

  it('reads and writes a record by its id as by its key', async () => {
    const keyv = createMemoryKeyv();
    const map = keyv.store as ExpiringMap;
    await keyv.set('flow:x', { context: { version: 99 }, version: 7, id: 'x' });
    expect(map.liveRecordVersion('x')).toBe(7);
    await keyv.set('flow:y', { value: null });
    expect(map.liveRecordVersion('y')).toBe(0);
    await keyv.set('flow:z', { version: Number.MAX_SAFE_INTEGER, id: 'z' });
    expect(map.liveRecordVersion('z')).toBe(Number.MAX_SAFE_INTEGER);
    expect(map.liveRecordVersion('nothing')).toBe(0);
    map.writeRecord(record.id, record, 60_000);
    const byKey = createMemoryKeyv().store as ExpiringMap;
    byKey.write(`verikit:flow:${record.id}`, record, 60_000);
    expect(JSON.parse(map.get(`verikit:flow:${record.id}`)!).value).toEqual(
      JSON.parse(byKey.get(`verikit:flow:${record.id}`)!).value,
    );
    expect(readLive(map, `verikit:flow:${record.id}`)).toEqual(record);
    expect(map.readRecord(record.id)?.value).toEqual(record);
    expect(liveVersion(map, `verikit:flow:${record.id}`)).toBe(3);
    expect(map.pendingExpiries).toBe(1);
  });

  it('takes ids only in a map whose one section of records no other section extends', () => {
    const plain = new ExpiringMap();
    expect(() => plain.liveRecordVersion('x')).toThrow('no section of flow records');
    const shadowed = new ExpiringMap({
      sections: [
        { prefix: 'f:', records: true },
        { prefix: 'f:hex:', hex: true },
      ],
    });
    expect(() => shadowed.writeRecord('x', record, 1000)).toThrow('no section of flow records');
  });

  it('refuses a compare-and-set over a version that moved on, and over a record that exists when 0 is expected', async () => {
    const store = new KeyvFlowStore();
    expect(await store.compareAndSetFlow(record, 0, 60_000)).toBe(true);
    expect(await store.compareAndSetFlow({ ...record, version: 4 }, 2, 60_000)).toBe(false);
    expect(await store.compareAndSetFlow({ ...record, version: 4 }, 0, 60_000)).toBe(false);
    expect(await store.compareAndSetFlow({ ...record, version: 4 }, 3, 60_000)).toBe(true);
    expect((await store.getFlow(record.id))?.version).toBe(4);
  });

  it('lets exactly one of many concurrent writers of the same version win', async () => {
    const store = new KeyvFlowStore();
    await store.compareAndSetFlow(record, 0, 60_000);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        store.compareAndSetFlow({ ...record, version: 4, updatedAt: index }, 3, 60_000),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('reads an expired record as absent and deletes it, as keyv.get does', async () => {
    const keyv = createMemoryKeyv();
    const map = keyv.store as ExpiringMap;
    map.set(
      'verikit:flow:CCCCCCCCCCCCCCCCCCCCCC',
      JSON.stringify({ value: { ...record, id: 'CCCCCCCCCCCCCCCCCCCCCC' }, expires: Date.now() - 1 }),
    );
    expect(readLive(map, 'verikit:flow:CCCCCCCCCCCCCCCCCCCCCC')).toBeUndefined();
    expect(map.has('verikit:flow:CCCCCCCCCCCCCCCCCCCCCC')).toBe(false);
    const store = new KeyvFlowStore(keyv);
    map.set(
      'verikit:flow:CCCCCCCCCCCCCCCCCCCCCC',
      JSON.stringify({ value: { ...record, id: 'CCCCCCCCCCCCCCCCCCCCCC' }, expires: Date.now() - 1 }),
    );
    expect(await store.getFlow('CCCCCCCCCCCCCCCCCCCCCC')).toBeUndefined();
    expect(map.has('verikit:flow:CCCCCCCCCCCCCCCCCCCCCC')).toBe(false);
    // An expired record is no record: a new flow may take its key.
    map.set(
      'verikit:flow:CCCCCCCCCCCCCCCCCCCCCC',
      JSON.stringify({ value: { ...record, id: 'CCCCCCCCCCCCCCCCCCCCCC' }, expires: Date.now() - 1 }),
    );
    expect(await store.compareAndSetFlow({ ...record, id: 'CCCCCCCCCCCCCCCCCCCCCC', version: 1 }, 0, 1000)).toBe(true);
  });

  it('reports a corrupt stored record as a StoreError, never as a missing flow', async () => {
    const keyv = createMemoryKeyv();
    (keyv.store as Map<string, string>).set('verikit:flow:DDDDDDDDDDDDDDDDDDDDDD', '{not json');
    const store = new KeyvFlowStore(keyv);
    await expect(store.getFlow('DDDDDDDDDDDDDDDDDDDDDD')).rejects.toMatchObject({ code: 'store_unavailable' });
    await expect(store.compareAndSetFlow({ ...record, id: 'DDDDDDDDDDDDDDDDDDDDDD' }, 0, 1000)).rejects.toMatchObject({
      code: 'store_unavailable',
    });
  });
});
