import { describe, expect, it } from 'vitest';
import type { Loaded } from './flow-records.js';
import { RecentlyCommitted } from './recently-committed.js';

const loaded = (id: string, version = 1) => ({ record: { id, version } }) as unknown as Loaded;

describe('RecentlyCommitted', () => {
  it('keeps the latest record of at most `capacity` flows, the least recently used going first', () => {
    const recent = new RecentlyCommitted(2);
    recent.remember(loaded('a'));
    recent.remember(loaded('b'));
    recent.remember(loaded('a', 2)); // a is now the most recent, with its newer record
    recent.remember(loaded('c')); // b goes
    expect(recent.get('a')?.record.version).toBe(2);
    expect(recent.get('b')).toBeUndefined();
    expect(recent.get('c')).toBeDefined();
    expect(recent.size).toBe(2);
  });

  it('forgets a flow on request', () => {
    const recent = new RecentlyCommitted(1);
    recent.remember(loaded('a'));
    recent.forget('a');
    expect(recent.get('a')).toBeUndefined();
    expect(recent.size).toBe(0);
  });
});
