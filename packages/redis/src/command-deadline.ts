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
 * process, a partition without a reset, a long script). One timer for all calls in flight, checked
 * every quarter of the timeout, instead of node-redis's per-command `AbortSignal.timeout`, which
 * cost about 8% of the CPU of an engine event in the Redis bench (docs/decisions/0305-one-deadline-timer-for-redis-calls.md).
 * A call fails between 1 and 1.25 times the timeout after it started.
 */
export class CommandDeadline {
  readonly #timeoutMs: number;
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

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#check(), Math.max(10, Math.floor(this.#timeoutMs / 4)));
    this.#timer.unref();
  }

  #check(): void {
    const now = Date.now();
    for (const entry of this.#pending) {
      if (now - entry.startedAt < this.#timeoutMs) continue;
      this.#pending.delete(entry);
      entry.reject(new CommandTimeoutError(this.#timeoutMs));
    }
    if (this.#pending.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}
