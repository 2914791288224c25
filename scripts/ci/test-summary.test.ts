import { describe, expect, it } from 'vitest';
import { testSummary } from './test-summary.js';

describe('testSummary', () => {
  it('prints the plain closing line with skipped and todo tests counted together', () => {
    expect(testSummary({ numPassedTests: 1427, numFailedTests: 0, numPendingTests: 70, numTodoTests: 7 })).toEqual({
      line: '1427 passed, 0 failed, 77 skipped',
      ok: true,
    });
  });

  it('fails a run with a failed test', () => {
    expect(testSummary({ numPassedTests: 3, numFailedTests: 1, numPendingTests: 0, numTodoTests: 0 }).ok).toBe(false);
  });

  it('fails a run in which no test ran', () => {
    const summary = testSummary({ numPassedTests: 0, numFailedTests: 0, numPendingTests: 4, numTodoTests: 0 });
    expect(summary).toEqual({ line: '0 passed, 0 failed, 4 skipped', ok: false });
  });
});
