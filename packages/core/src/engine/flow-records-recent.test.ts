import { describe, expect, it } from 'vitest';
import { RecentlyUsed } from './flow-records.js';

describe('RecentlyUsed', () => {
  it('keeps at most `capacity` entries, the least recently remembered going first', () => {
    const recent = new RecentlyUsed<number>(2);
    recent.remember('a', 1);
    recent.remember('b', 1);
    recent.remember('a', 2); // a is now the most recent, with its newer value
    recent.remember('c', 1); // b goes
    expect(recent.get('a')).toBe(2);
    expect(recent.get('b')).toBeUndefined();
    expect(recent.get('c')).toBe(1);
    expect(recent.size).toBe(2);
  });

  it('forgets a key on request', () => {
    const recent = new RecentlyUsed<number>(1);
    recent.remember('a', 1);
    recent.forget('a');
    expect(recent.get('a')).toBeUndefined();
    expect(recent.size).toBe(0);
  });
});
