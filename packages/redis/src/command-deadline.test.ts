import { afterEach, describe, expect, it, vi } from 'vitest';
import { CallBudget } from './call-budget.js';
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
    const outcome = deadline.run(hung).catch((error: unknown) => error);
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
    const first = deadline.run(hung).catch(() => failedAt.push(Date.now() - start));
    await vi.advanceTimersByTimeAsync(300);
    const answered = deadline.run(() => Promise.resolve('ok'));
    const second = deadline.run(hung).catch(() => failedAt.push(Date.now() - start));
    await vi.advanceTimersByTimeAsync(2000);
    await Promise.all([first, second]);
    expect(await answered).toBe('ok');
    expect(failedAt).toEqual([1000, 1300]);
  });

  it('is off with a timeout of 0', async () => {
    const deadline = new CommandDeadline(0);
    expect(await deadline.run(() => Promise.resolve(1))).toBe(1);
  });
});

/** Runs `work` as one engine call with `limitMs` of Redis time, as the engine does with a store's `openCall`. */
async function withinBudget<T>(limitMs: number, work: (call: CallBudget) => Promise<T>): Promise<T> {
  const call = new CallBudget(limitMs);
  try {
    return await work(call);
  } finally {
    call.end();
  }
}

/** A command Redis answers after `ms`. */
const answeredAfter = (ms: number) => () => new Promise<string>((resolve) => setTimeout(() => resolve('ok'), ms));

describe('one deadline per engine call (fake clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails the second of two 600 ms commands at 1000 ms of Redis time in all, and sends no third', async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(1000);
    const start = Date.now();
    let sent = 0;
    const call = withinBudget(1000, async (call) => {
      await deadline.run(answeredAfter(600), call);
      await deadline.run(answeredAfter(600), call);
      await deadline.run(async () => {
        sent += 1;
        return 'third';
      }, call);
    }).catch((error: unknown) => ({ error, at: Date.now() - start }));
    await vi.advanceTimersByTimeAsync(2000);
    const { error, at } = (await call) as { error: CommandTimeoutError; at: number };
    expect(error).toBeInstanceOf(CommandTimeoutError);
    expect(error).toMatchObject({ ofCall: true, sent: true, timeoutMs: 1000 });
    expect(error.message).toBe("Redis gave no answer within the call's deadline of 1000 ms");
    expect(at).toBe(1000);
    expect(sent).toBe(0);
  });

  it('counts only the time a command is in flight: a 2 s wait between two commands is not Redis time', async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(1000);
    const call = withinBudget(1000, async (call) => {
      await deadline.run(answeredAfter(600), call);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      return deadline.run(answeredAfter(300), call);
    });
    await vi.advanceTimersByTimeAsync(3000);
    expect(await call).toBe('ok');
  });

  it('counts two commands in flight together once', async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(1000);
    const call = withinBudget(1000, async (call) => {
      await Promise.all([deadline.run(answeredAfter(700), call), deadline.run(answeredAfter(700), call)]);
      return deadline.run(answeredAfter(200), call);
    });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await call).toBe('ok');
  });

  it('sends nothing once the call has no time left: the error says the command was never sent', async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(5000);
    let sent = false;
    const call = withinBudget(500, async (call) => {
      await deadline.run(answeredAfter(500), call);
      return deadline.run(async () => {
        sent = true;
        return 'late';
      }, call);
    }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await call).toMatchObject({ ofCall: true, sent: false, timeoutMs: 500 });
    expect(sent).toBe(false);
  });

  it("keeps a command's own timeout when it is the sooner, and gives work left running after the call its own", async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(300);
    let left: Promise<unknown> | undefined;
    const call = withinBudget(1000, async (call) => {
      const own = await deadline.run(hung, call).catch((error: unknown) => error);
      left = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        // The call has returned: each command is on its own (300 ms), past what the call had left (700 ms).
        await deadline.run(answeredAfter(250), call);
        await deadline.run(answeredAfter(250), call);
        return deadline.run(answeredAfter(250), call);
      })();
      return own;
    });
    await vi.advanceTimersByTimeAsync(2000);
    expect(await call).toMatchObject({ ofCall: false, timeoutMs: 300 });
    expect(await left).toBe('ok');
  });

  it('a call whose limit is 0 has none, as a store whose timeout is off', async () => {
    vi.useFakeTimers();
    const deadline = new CommandDeadline(0);
    const call = withinBudget(0, (budget) => deadline.run(answeredAfter(10_000), budget));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await call).toBe('ok');
  });
});
