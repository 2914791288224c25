import { describe, expect, it } from 'vitest';
import { onFirstUse } from './inputs.js';

describe('onFirstUse', () => {
  it('builds nothing until the first call, then once, and returns the same value every time', () => {
    let builds = 0;
    const value = onFirstUse(() => ({ built: ++builds }));
    expect(builds).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(builds).toBe(1);
  });
});
