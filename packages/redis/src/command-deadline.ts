/** A Redis call that got no answer within the command timeout. */
export class CommandTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(timeoutMs: number) {
    super(`Redis gave no answer within ${timeoutMs} ms`);
    this.name = 'CommandTimeoutError';
  }
}

/**
 * Fails a Redis call that got no answer in time (a Redis that hangs rather than refuses: a stopped
 * process, a partition without a reset, a long script). One timer for all calls in flight, set for
 * the oldest call's deadline, instead of node-redis's per-command `AbortSignal.timeout`, which
 * cost about 8% of the CPU of an engine event in the Redis bench (docs/decisions/0305-one-deadline-timer-for-redis-calls.md).
 * A call fails at its deadline, as soon as the event loop gets to it (it failed up to a quarter of the
 * timeout late before: 6.25 s for 5 s).
 */
export class CommandDeadline {
  readonly #timeoutMs: number;
  /** In the order the calls started: the first is the oldest. */
  readonly #pending = new Set<{ readonly startedAt: number; readonly reject: (error: Error) => void }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** The timeout in ms (0: off). */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Resolves or rejects as `promise` does, or rejects with a timeout error first. */
  guard<T>(promise: Promise<T>): Promise<T> {
    if (this.#timeoutMs <= 0) return promise;
    return new Promise<T>((resolve, reject) => {
      const entry = { startedAt: Date.now(), reject };
      this.#pending.add(entry);
      this.#schedule();
      promise.then(
        (value) => {
          this.#pending.delete(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.#pending.delete(entry);
          reject(error as Error);
        },
      );
    });
  }

  /** Arms the timer for the oldest call's deadline, unless it is armed. */
  #schedule(): void {
    if (this.#timer) return;
    const oldest = this.#pending.values().next().value;
    if (oldest === undefined) return;
    const delay = Math.max(0, oldest.startedAt + this.#timeoutMs - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#check();
    }, delay);
    this.#timer.unref();
  }

  #check(): void {
    const now = Date.now();
    for (const entry of this.#pending) {
      // Oldest first: the first call still within its time ends the sweep.
      if (now - entry.startedAt < this.#timeoutMs) break;
      this.#pending.delete(entry);
      entry.reject(new CommandTimeoutError(this.#timeoutMs));
    }
    this.#schedule();
  }
}
