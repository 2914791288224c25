import { setMaxListeners } from 'node:events';

/** What aborts the calls of a window whose deadline passed. */
export type DeadlineReason = () => Error;

/**
 * Provider calls that start within a few milliseconds of each other share one `AbortSignal` and one timer
 * (docs/decisions/1470-shared-deadlines-for-provider-calls.md). On Node 20 an `AbortController` costs about as much
 * as the rest of a call's bookkeeping and outlives the young generation, and the engine made one, with a timer, for
 * every call.
 *
 * A window opens with its first call and takes the calls that start within `windowMs` of it (1% of the timeout, at
 * most 10 ms). Its timer is armed for the first call's deadline; when it fires before the last call's deadline it is
 * armed once more for the rest, so no call is aborted before its own deadline, and none more than `windowMs` after.
 * Then the signal is aborted and every call still seated is told. A window whose calls all settled clears its timer
 * and takes no more calls: nothing is left behind when the engine is idle.
 */
export class CallDeadlines {
  readonly #reason: DeadlineReason;
  #open: DeadlineWindow | undefined;

  constructor(reason: DeadlineReason) {
    this.#reason = reason;
  }

  /** The window a call starting now with this timeout joins: give the call its `signal`, then take a seat. */
  window(timeoutMs: number): DeadlineWindow {
    const now = performance.now();
    const open = this.#open;
    if (open?.takes(now, timeoutMs)) return open;
    const opened = new DeadlineWindow(now, timeoutMs, this.#reason, (closed) => {
      if (this.#open === closed) this.#open = undefined;
    });
    this.#open = opened;
    return opened;
  }
}

/**
 * Runs `call` with the signal of the window open now. Settles as the call does, or, once its deadline passed first,
 * rejects with the deadline's reason, whether or not the call heeds its signal (a message send: nothing waits past
 * the deadline for a provider that does not).
 */
export function underDeadline<T>(
  deadlines: CallDeadlines,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const window = deadlines.window(timeoutMs);
  const running = call(window.signal);
  return new Promise<T>((resolve, reject) => {
    const seat = window.seat(() => reject(window.signal.reason));
    running.then(
      (value) => {
        window.leave(seat);
        resolve(value);
      },
      (error: unknown) => {
        window.leave(seat);
        reject(error);
      },
    );
  });
}

/** The calls that share one signal and one timer. A class rather than closures: this runs for every provider call. */
export class DeadlineWindow {
  readonly #controller = new AbortController();
  readonly #opensAt: number;
  readonly #timeoutMs: number;
  readonly #windowMs: number;
  readonly #reason: DeadlineReason;
  readonly #retired: (window: DeadlineWindow) => void;
  /** The calls told when the deadline passes; a seat that settled is emptied. */
  readonly #seats: Array<(() => void) | undefined> = [];
  #seated = 0;
  #lastDeadlineAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #over = false;

  constructor(opensAt: number, timeoutMs: number, reason: DeadlineReason, retired: (window: DeadlineWindow) => void) {
    this.#opensAt = opensAt;
    this.#timeoutMs = timeoutMs;
    this.#windowMs = Math.min(10, timeoutMs / 100);
    this.#reason = reason;
    this.#retired = retired;
    // Every call of the window may listen to its signal (ky joins it to its own): more than Node's 10 is expected.
    setMaxListeners(0, this.#controller.signal);
  }

  /** The signal every call of this window is given. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Whether a call starting at `now` with this timeout may join. */
  takes(now: number, timeoutMs: number): boolean {
    return !this.#over && timeoutMs === this.#timeoutMs && now - this.#opensAt < this.#windowMs;
  }

  /** Seats a call: `onDeadline` is called once its deadline passed, unless it {@link leave}s first. */
  seat(onDeadline: () => void): number {
    const now = performance.now();
    this.#lastDeadlineAt = now + this.#timeoutMs;
    this.#seated += 1;
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#fire(), this.#timeoutMs);
    return this.#seats.push(onDeadline) - 1;
  }

  /** The call settled: it is not told of the deadline; the last call to leave clears the timer. */
  leave(seat: number): void {
    if (this.#seats[seat] === undefined) return;
    this.#seats[seat] = undefined;
    this.#seated -= 1;
    if (this.#seated > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#retire();
  }

  #fire(): void {
    const rest = this.#lastDeadlineAt - performance.now();
    if (rest >= 1 && !this.#over) {
      // The first call's deadline: the calls that joined after it have theirs still to come (at most `windowMs`).
      this.#over = true;
      this.#timer = setTimeout(() => this.#fire(), Math.min(rest, this.#windowMs));
      this.#retired(this);
      return;
    }
    this.#timer = undefined;
    this.#retire();
    this.#controller.abort(this.#reason());
    const seats = this.#seats.splice(0);
    this.#seated = 0;
    for (const onDeadline of seats) onDeadline?.();
  }

  #retire(): void {
    this.#over = true;
    this.#retired(this);
  }
}
