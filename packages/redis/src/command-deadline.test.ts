import { afterEach, describe, expect, it, vi } from 'vitest';
import { CommandDeadline, CommandTimeoutError } from './command-deadline.js';

/** A promise that never settles: a command sent to a Redis that hangs. */
const hung = () => new Promise<never>(() => {});

describe('CommandDeadline (fake clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails a call at its deadline, not up to a quarter of the timeout later', async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(5000);
    const outcome = deadline.guard(hung()).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(4999);
    let settled: unknown;
    void outcome.then((value) => (settled = value));
    await Promise.resolve();
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toBeInstanceOf(CommandTimeoutError);
  });

  it("fails a call started between two others' deadlines at its own (1300 ms, not 1500), and lets answered ones through", async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(1000);
    const failedAt: number[] = [];
    const start = Date.now();
    const first = deadline.guard(hung()).catch(() => failedAt.push(Date.now() - start));
    await vi.advanceTimersByTimeAsync(300);
    const answered = deadline.guard(Promise.resolve('ok'));
    const second = deadline.guard(hung()).catch(() => failedAt.push(Date.now() - start));
    await vi.advanceTimersByTimeAsync(2000);
    await Promise.all([first, second]);
    expect(await answered).toBe('ok');
    expect(failedAt).toEqual([1000, 1300]);
  });

  it('is off with a timeout of 0', async () => {
    const deadline = new CommandDeadline(0);
    expect(await deadline.guard(Promise.resolve(1))).toBe(1);
  });
});
