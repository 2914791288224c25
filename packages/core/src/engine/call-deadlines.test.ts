import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallDeadlines } from './call-deadlines.js';

const reason = () => new Error('the provider did not answer before the deadline');

describe('CallDeadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives the calls that start within the window one signal, and a later call another', () => {
    const deadlines = new CallDeadlines(reason);
    const first = deadlines.window(15_000);
    first.seat(() => {});
    vi.advanceTimersByTime(9);
    const second = deadlines.window(15_000);
    second.seat(() => {});
    expect(second.signal).toBe(first.signal);
    vi.advanceTimersByTime(1);
    const third = deadlines.window(15_000);
    expect(third.signal).not.toBe(first.signal);
  });

  it('keeps the window to 1% of a short timeout', () => {
    const deadlines = new CallDeadlines(reason);
    const first = deadlines.window(200);
    first.seat(() => {});
    vi.advanceTimersByTime(2);
    expect(deadlines.window(200)).not.toBe(first);
  });

  it('does not share a window between different timeouts', () => {
    const deadlines = new CallDeadlines(reason);
    const first = deadlines.window(1000);
    first.seat(() => {});
    expect(deadlines.window(2000)).not.toBe(first);
  });

  it('tells no call of its deadline before it passed, and none more than the window after', () => {
    const deadlines = new CallDeadlines(reason);
    const told: Array<[string, number]> = [];
    const started = performance.now();
    const first = deadlines.window(1000);
    first.seat(() => told.push(['first', performance.now() - started]));
    vi.advanceTimersByTime(7);
    const second = deadlines.window(1000);
    second.seat(() => told.push(['second', performance.now() - started]));
    vi.advanceTimersByTime(999);
    expect(first.signal.aborted).toBe(false);
    expect(told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(told).toEqual([
      ['first', 1007],
      ['second', 1007],
    ]);
  });

  it('aborts the signal with the reason before it tells the calls, so a failure after it reads as the deadline', () => {
    const deadlines = new CallDeadlines(reason);
    const window = deadlines.window(500);
    let abortedWhenTold: boolean | undefined;
    window.seat(() => {
      abortedWhenTold = window.signal.aborted;
    });
    vi.advanceTimersByTime(500);
    expect(abortedWhenTold).toBe(true);
    expect((window.signal.reason as Error).message).toBe('the provider did not answer before the deadline');
  });

  it('does not tell a call that settled, and leaves no timer once every call of the window settled', () => {
    const deadlines = new CallDeadlines(reason);
    const told: string[] = [];
    const window = deadlines.window(500);
    const first = window.seat(() => told.push('first'));
    const second = deadlines.window(500).seat(() => told.push('second'));
    window.leave(first);
    window.leave(first);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(500);
    expect(told).toEqual(['second']);
    window.leave(second);

    const next = deadlines.window(500);
    const seat = next.seat(() => told.push('third'));
    next.leave(seat);
    expect(vi.getTimerCount()).toBe(0);
    expect(next.signal.aborted).toBe(false);
    vi.advanceTimersByTime(5);
    // A window whose calls all settled, and whose `windowMs` passed, takes no more: the next call opens another.
    expect(deadlines.window(500)).not.toBe(next);
    vi.advanceTimersByTime(1000);
    expect(told).toEqual(['second']);
  });

  it('gives a call that starts after every call of its window settled the same signal, timed from its own start', () => {
    const deadlines = new CallDeadlines(reason);
    const told: Array<[string, number]> = [];
    const started = performance.now();
    const first = deadlines.window(1000);
    first.leave(first.seat(() => told.push(['first', performance.now() - started])));
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(6);
    const second = deadlines.window(1000);
    expect(second).toBe(first);
    second.seat(() => told.push(['second', performance.now() - started]));
    vi.advanceTimersByTime(3);
    deadlines.window(1000).seat(() => told.push(['third', performance.now() - started]));
    // The window opened 1,005 ms ago, but its first call settled: nobody is told before 1,006, nor then (the third's
    // deadline is 1,009).
    vi.advanceTimersByTime(996);
    expect(told).toEqual([]);
    expect(first.signal.aborted).toBe(false);
    vi.advanceTimersByTime(3);
    expect(told).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(told).toEqual([
      ['second', 1009],
      ['third', 1009],
    ]);
    expect(first.signal.aborted).toBe(true);
    // Once aborted, the window takes no more calls, even within its milliseconds of a start.
    expect(deadlines.window(1000)).not.toBe(first);
  });

  it('lets every call of a busy window listen to its signal without a listener warning', async () => {
    vi.useRealTimers();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const window = new CallDeadlines(reason).window(1000);
      const seats = Array.from({ length: 50 }, () => {
        window.signal.addEventListener('abort', () => {});
        return window.seat(() => {});
      });
      for (const seat of seats) window.leave(seat);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });
});
