import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExpiringMap } from './expiring-map.js';
import { expiresOf } from '../record-expiry.js';

// Expiry is driven by explicit timestamps: records carry the expiry Keyv would stamp, and sweeps
// are given `now`. Slots are 1 s wide; t0 sits on a slot boundary.
const t0 = 1_700_000_000_000;
// What Keyv stores with `serialize: JSON.stringify`.
const record = (value: unknown, expires?: number) => JSON.stringify({ value, expires });

function mapAt(now: number, options: { sweepBudget?: number } = {}) {
  let clock = now;
  const map = new ExpiringMap({ now: () => clock, slotMs: 1000, ...options });
  return { map, setNow: (next: number) => (clock = next) };
}

describe('expiresOf', () => {
  it('reads the expiry Keyv wrote last in its envelope', () => {
    expect(expiresOf(record({ a: 1 }, t0))).toBe(t0);
    expect(expiresOf(record({ a: 1 }, t0 + 0.5))).toBe(t0 + 0.5);
    expect(expiresOf(record('route', t0))).toBe(t0);
  });

  it('reads nothing from a record without one, however its value looks', () => {
    const values = [
      { expires: 5 },
      { a: { b: 1, expires: 5 } },
      ',"expires":5}',
      '{"value":1,"expires":5}',
      [{ expires: 5 }],
    ];
    for (const value of values) expect(expiresOf(record(value))).toBeUndefined();
    for (const other of [
      undefined,
      42,
      '',
      '}',
      ',"expires":}',
      '{"value":1,"expires":"5"}',
      '{"value":1,"expires":null}',
    ]) {
      expect(expiresOf(other)).toBeUndefined();
    }
  });
});

describe('ExpiringMap', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('deletes records whose expiry has passed without their being read, and keeps the others', () => {
    const { map } = mapAt(t0);
    map.set('a', record('a', t0 + 500));
    map.set('b', record('b', t0 + 1500));
    map.set('forever', record('forever'));
    expect(map.sweep(t0 + 999)).toBe(0); // a's slot has not passed yet
    expect(map.sweep(t0 + 1000)).toBe(1);
    expect([...map.keys()]).toEqual(['b', 'forever']);
    expect(map.sweep(t0 + 60_000)).toBe(1);
    expect([...map.keys()]).toEqual(['forever']);
    expect(map.pendingExpiries).toBe(0);
  });

  it('keeps a key written again with a later expiry, and deletes it when that one passes', () => {
    const { map } = mapAt(t0);
    map.set('k', record('first', t0 + 100));
    map.set('k', record('second', t0 + 3_600_000));
    expect(map.sweep(t0 + 10_000)).toBe(0);
    expect(map.get('k')).toBe(record('second', t0 + 3_600_000));
    expect(map.sweep(t0 + 3_600_000 + 1000)).toBe(1);
    expect(map.has('k')).toBe(false);
  });

  it('deletes a key written again with an earlier expiry at that earlier time', () => {
    const { map } = mapAt(t0);
    map.set('k', record('first', t0 + 3_600_000));
    map.set('k', record('second', t0 + 100));
    expect(map.sweep(t0 + 1000)).toBe(1);
    expect(map.has('k')).toBe(false);
  });

  it('keeps a key written again without an expiry', () => {
    const { map } = mapAt(t0);
    map.set('k', record('first', t0 + 100));
    map.set('k', record('second'));
    expect(map.sweep(t0 + 60_000)).toBe(0);
    expect(map.get('k')).toBe(record('second'));
    expect(map.pendingExpiries).toBe(0);
  });

  it('files a key rewritten with the same or a later expiry only once', () => {
    const { map } = mapAt(t0);
    for (let version = 0; version < 5; version += 1) map.set('k', record(version, t0 + 5000 + version * 10_000));
    expect(map.pendingExpiries).toBe(1);
  });

  it('forgets deleted and cleared keys', () => {
    const { map } = mapAt(t0);
    map.set('gone', record('x', t0 + 100));
    map.delete('gone');
    expect(map.sweep(t0 + 60_000)).toBe(0);
    expect(map.pendingExpiries).toBe(0);
    map.set('cleared', record('x', t0 + 100_000));
    map.clear();
    expect(map.pendingExpiries).toBe(0);
    map.set('again', record('x', t0 + 100_000));
    expect(map.sweep(t0 + 200_000)).toBe(1);
  });

  it('sweeps in steps when given a budget, and after a long pause reaches every due slot', () => {
    const { map } = mapAt(t0);
    for (let index = 0; index < 5; index += 1) map.set(`k${index}`, record(index, t0 + index * 86_400_000));
    const deleted: number[] = [];
    for (let step = 0; step < 10; step += 1) deleted.push(map.sweep(t0 + 30 * 86_400_000, 2));
    expect(deleted.slice(0, 3)).toEqual([2, 2, 1]);
    expect(map.size).toBe(0);
    expect(map.pendingExpiries).toBe(0);
  });

  it('still deletes a record written with an expiry in a slot already swept', () => {
    const { map } = mapAt(t0);
    map.sweep(t0 + 10_000);
    map.set('late', record('x', t0 + 500)); // e.g. a clock behind the sweeper's
    expect(map.sweep(t0 + 10_000)).toBe(0);
    expect(map.sweep(t0 + 11_000)).toBe(1);
  });

  it('sweeps on its own timer, in budgeted steps, and stops the timer when nothing waits', () => {
    vi.useFakeTimers();
    const { map, setNow } = mapAt(t0, { sweepBudget: 2 });
    expect(vi.getTimerCount()).toBe(0);
    for (let index = 0; index < 5; index += 1) map.set(`k${index}`, record(index, t0 + 100));
    map.set('later', record('later', t0 + 60_000));
    expect(vi.getTimerCount()).toBe(1);
    setNow(t0 + 1000);
    vi.advanceTimersByTime(1000);
    expect(map.size).toBe(4); // two deleted; the rest follow right after
    vi.advanceTimersByTime(1); // Node runs a 0 ms timer after 1 ms
    expect(map.size).toBe(2);
    vi.advanceTimersByTime(1);
    expect([...map.keys()]).toEqual(['later']);
    setNow(t0 + 61_000);
    vi.advanceTimersByTime(1000);
    expect(map.size).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(vi.getTimerCount()).toBe(0);
  });
});
