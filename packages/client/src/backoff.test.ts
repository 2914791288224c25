import { describe, expect, it } from 'vitest';
import { backoffDelay } from './backoff.js';

describe('backoffDelay', () => {
  const options = { initialMs: 100, maxMs: 1_000 };

  it('doubles from the first wait up to the longest, with jitter between half and all of it', () => {
    expect([0, 1, 2, 3, 4, 40].map((attempt) => backoffDelay(attempt, options, undefined, () => 1))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
    expect([0, 1, 2, 3, 4].map((attempt) => backoffDelay(attempt, options, undefined, () => 0))).toEqual([
      50, 100, 200, 400, 500,
    ]);
  });

  it("waits at least the server's Retry-After, but never past the longest wait", () => {
    expect(backoffDelay(0, options, 700, () => 0)).toBe(700);
    expect(backoffDelay(0, options, 60_000, () => 0)).toBe(1_000);
    expect(backoffDelay(3, options, 10, () => 1)).toBe(800);
  });
});
