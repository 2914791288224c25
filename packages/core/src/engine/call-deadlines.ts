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
 * Then the signal is aborted and every call still seated is told. A window whose calls all settled clears its timer,
 * so nothing is left behind when the engine is idle, and still takes the calls that start within `windowMs` of its
 * opening: calls made one after another (a start's send, then the next start's) share its signal too, each timed
 * from its own start (decision 1850).
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
    this.#open = new DeadlineWindow(now, timeoutMs, this.#reason);
    return this.#open;
  }
}

/**
 * Runs `call` with the signal of the window open now. Settles as the call does, or, once its deadline passed first,
 * rejects with the deadline's reason, whether or not the call heeds its signal (a message send: nothing waits past
 * the deadline for a provider that does not).
 */
export async function underDeadline<T>(
  deadlines: CallDeadlines,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const window = deadlines.window(timeoutMs);
  const settled = await window.race(call(window.signal));
  if (settled === undefined) throw window.signal.reason;
  if (!settled.ok) throw settled.error;
  return settled.result;
}

/** What a call came to under its deadline: its result, its error, or undefined once the deadline passed first. */
export type Settled<T> = { ok: true; result: T } | { ok: false; error: unknown } | undefined;

/** The calls that share one signal and one timer. A class rather than closures: this runs for every provider call. */
export class DeadlineWindow {
  readonly #controller = new AbortController();
  readonly #opensAt: number;
  readonly #timeoutMs: number;
  readonly #windowMs: number;
  readonly #reason: DeadlineReason;
  /** The calls told when the deadline passes; a seat that settled is emptied. */
  readonly #seats: Array<(() => void) | undefined> = [];
  #seated = 0;
  #lastDeadlineAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #over = false;

  constructor(opensAt: number, timeoutMs: number, reason: DeadlineReason) {
    this.#opensAt = opensAt;
    this.#timeoutMs = timeoutMs;
    this.#windowMs = Math.min(10, timeoutMs / 100);
    this.#reason = reason;
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

  /**
   * Seats the call `running`: settles with its outcome, or with undefined once its deadline passed first (the signal
   * is then aborted, so a failure after it is the deadline's too). One promise settled by whichever comes first.
   */
  race<T>(running: Promise<T>): Promise<Settled<T>> {
    return new Promise((resolve) => {
      const seat = this.seat(() => resolve(undefined));
      running.then(
        (result) => {
          this.leave(seat);
          resolve({ ok: true, result });
        },
        (error: unknown) => {
          this.leave(seat);
          resolve(this.signal.aborted ? undefined : { ok: false, error });
        },
      );
    });
  }

  /** Seats a call: `onDeadline` is called once its deadline passed, unless it {@link leave}s first. */
  seat(onDeadline: () => void): number {
    const now = performance.now();
    this.#lastDeadlineAt = now + this.#timeoutMs;
    this.#seated += 1;
    if (this.#timer === undefined) this.#timer = setTimeout(() => this.#fire(), this.#timeoutMs);
    return this.#seats.push(onDeadline) - 1;
  }

  /**
   * The call settled: it is not told of the deadline. The last call to leave clears the timer; a call that starts
   * within the window after it is timed afresh from its own start (calls made one after another share the signal).
   */
  leave(seat: number): void {
    if (this.#seats[seat] === undefined) return;
    this.#seats[seat] = undefined;
    this.#seated -= 1;
    if (this.#seated > 0) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#seats.length = 0;
  }

  #fire(): void {
    const rest = this.#lastDeadlineAt - performance.now();
    if (rest >= 1 && !this.#over) {
      // The first call's deadline: the calls that joined after it have theirs still to come (at most `windowMs`).
      this.#over = true;
      this.#timer = setTimeout(() => this.#fire(), Math.min(rest, this.#windowMs));
      return;
    }
    this.#timer = undefined;
    this.#over = true;
    this.#controller.abort(this.#reason());
    const seats = this.#seats.splice(0);
    this.#seated = 0;
    for (const onDeadline of seats) onDeadline?.();
  }
}
