import { describe, expect, it } from 'vitest';
import { type Loaded, RecentlyUsed } from '../flow-records.js';
import { committedChange } from './after-commit.fixtures.js';
import { rememberRecent } from './remember-recent.js';

describe('rememberRecent', () => {
  it('keeps the record as committed, with its snapshot, for the next event of the flow', () => {
    const recent = new RecentlyUsed<Loaded>(10);
    const change = committedChange();
    rememberRecent(recent)(change);
    expect(recent.get('flow-1')).toEqual({ record: change.record, flow: change.flow, snapshot: change.next });
  });

  it("keeps a tick's record too, and never a start's", () => {
    const recent = new RecentlyUsed<Loaded>(10);
    rememberRecent(recent)(committedChange({ cause: 'start' }));
    expect(recent.get('flow-1')).toBeUndefined();
    rememberRecent(recent)(committedChange({ cause: 'tick' }));
    expect(recent.get('flow-1')?.record.version).toBe(2);
  });
});
