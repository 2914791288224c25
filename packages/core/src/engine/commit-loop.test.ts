import { describe, expect, it } from 'vitest';
import type { AfterCommitStep } from './after-commit/after-commit-step.js';
import { committedChange } from './after-commit/after-commit.fixtures.js';
import { runAfterCommit } from './commit-loop.js';

describe('runAfterCommit', () => {
  it('runs the steps in order, each once the one before settled', async () => {
    const ran: string[] = [];
    const steps: AfterCommitStep[] = [
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        ran.push('slow');
      },
      () => void ran.push('sync'),
      async () => void ran.push('last'),
    ];
    await runAfterCommit(steps, committedChange());
    expect(ran).toEqual(['slow', 'sync', 'last']);
  });

  it('makes no promise when no step waits, as for most commits', () => {
    const ran: string[] = [];
    const steps: AfterCommitStep[] = [() => void ran.push('first'), () => void ran.push('second')];
    expect(runAfterCommit(steps, committedChange())).toBeUndefined();
    expect(ran).toEqual(['first', 'second']);
  });

  it("stops at a step's throw and rejects with it", async () => {
    const ran: string[] = [];
    const failure = new Error('route write failed');
    const steps: AfterCommitStep[] = [
      () => {
        throw failure;
      },
      () => void ran.push('after'),
    ];
    await expect(runAfterCommit(steps, committedChange())).rejects.toBe(failure);
    expect(ran).toEqual([]);
  });
});
