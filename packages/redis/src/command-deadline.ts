import { StoreDeadlineError } from '@verikit/core';
import { safeStoreCause } from '@verikit/core/internal';
import { liveBudget, type CallBudget } from './call-budget.js';

/** A Redis call that got no answer within the command timeout, or within what its engine call had left. */
export class CommandTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  /** The deadline that passed: the command timeout, or the engine call's whole Redis time. */
  readonly timeoutMs: number;
  /** True when the engine call's deadline passed (its Redis time was spent), not the command's own. */
  readonly ofCall: boolean;
  /** False when the command was never sent: the call had no time left for it. */
  readonly sent: boolean;

  constructor(timeoutMs: number, options: { ofCall?: boolean; sent?: boolean } = {}) {
    super(
      options.sent === false
        ? `the call's deadline of ${timeoutMs} ms had passed before it was sent`
        : options.ofCall
          ? `Redis gave no answer within the call's deadline of ${timeoutMs} ms`
          : `Redis gave no answer within ${timeoutMs} ms`,
    );
    this.name = 'CommandTimeoutError';
    this.timeoutMs = timeoutMs;
    this.ofCall = options.ofCall ?? false;
    this.sent = options.sent ?? true;
  }
}

/** A timeout as the caller sees it: the deadline, and whether the write cut short may still be applied. */
export function deadlineError(what: string, timeout: CommandTimeoutError, wrote: boolean): StoreDeadlineError {
  const written = wrote && timeout.sent ? 'unknown' : 'no';
  const outcome = written === 'unknown' ? '; the write may still be applied, whole' : '';
  return new StoreDeadlineError(`${what}: ${timeout.message}${outcome}`, {
    deadlineMs: timeout.timeoutMs,
    written,
    cause: safeStoreCause(timeout),
  });
}

/**
 * One command in flight under a deadline: settles its caller's promise once, with the command's answer or, first, a
 * timeout. A class with two methods rather than closures per command: this runs for every Redis command.
 */
class Pending<T> {
  readonly deadlineAt: number;
  readonly #timeoutMs: number;
  readonly #ofCall: boolean;
  readonly #budget: CallBudget | undefined;
  readonly #owner: Set<Pending<unknown>>;
  #resolve: ((value: T) => void) | undefined;
  #reject: ((error: Error) => void) | undefined;

  constructor(
    owner: Set<Pending<unknown>>,
    deadlineAt: number,
    timeoutMs: number,
    ofCall: boolean,
    budget: CallBudget | undefined,
    resolve: (value: T) => void,
    reject: (error: Error) => void,
  ) {
    this.#owner = owner;
    this.deadlineAt = deadlineAt;
    this.#timeoutMs = timeoutMs;
    this.#ofCall = ofCall;
    this.#budget = budget;
    this.#resolve = resolve;
    this.#reject = reject;
  }

  /** The command answered: passes its answer on, unless the deadline came first. */
  answered(value: T): void {
    const resolve = this.#resolve;
    if (resolve === undefined) return;
    this.#settle();
    resolve(value);
  }

  /** The command failed, or (`timedOut`) its deadline passed: passes the error on, unless already settled. */
  failed(error: Error): void {
    const reject = this.#reject;
    if (reject === undefined) return;
    this.#settle();
    reject(error);
  }

  timedOut(): void {
    this.failed(new CommandTimeoutError(this.#timeoutMs, { ofCall: this.#ofCall }));
  }

  #settle(): void {
    this.#resolve = undefined;
    this.#reject = undefined;
    this.#owner.delete(this as Pending<unknown>);
    this.#budget?.settle(Date.now());
  }
}

/**
 * Fails a Redis call that got no answer in time (a Redis that hangs rather than refuses: a stopped
 * process, a partition without a reset, a long script). One timer for all calls in flight, set for
 * the earliest deadline, instead of node-redis's per-command `AbortSignal.timeout`, which
 * cost about 8% of the CPU of an engine event in the Redis bench (docs/decisions/0305-one-deadline-timer-for-redis-calls.md).
 * A call fails at its deadline, as soon as the event loop gets to it (it failed up to a quarter of the
 * timeout late before: 6.25 s for 5 s).
 *
 * Inside an engine call (a {@link CallBudget}) a command's deadline is the sooner of its own and what the call has
 * left, and a command is not sent once the call has nothing left (docs/decisions/1240-one-redis-deadline-per-engine-call.md).
 */
export class CommandDeadline {
  readonly #timeoutMs: number;
  /** The calls in flight. */
  readonly #pending = new Set<Pending<unknown>>();
  /** Armed for a deadline no later than any in flight (it may be one already answered: then it finds the next). */
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /** The timeout in ms (0: off). */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /**
   * Sends the command `send` makes, and resolves or rejects as it does, or rejects with a timeout error first.
   * Inside an engine call (`call`, its budget) with no time left, rejects without calling `send`.
   */
  run<T>(send: () => Promise<T>, call?: unknown): Promise<T> {
    const budget = liveBudget(call);
    const now = Date.now();
    const own = this.#timeoutMs > 0 ? this.#timeoutMs : Number.POSITIVE_INFINITY;
    const left = budget === undefined ? own : budget.leftAt(now);
    if (budget !== undefined && left <= 0)
      return Promise.reject(new CommandTimeoutError(budget.limitMs, { ofCall: true, sent: false }));
    budget?.begin(now);
    let promise: Promise<T>;
    try {
      promise = send();
    } catch (error) {
      budget?.settle(Date.now());
      return Promise.reject(error as Error);
    }
    if (budget === undefined)
      return own === Number.POSITIVE_INFINITY ? promise : this.#guard(promise, now + own, own, false);
    return left < own
      ? this.#guard(promise, now + left, budget.limitMs, true, budget)
      : this.#guard(promise, now + own, own, false, budget);
  }

  /** `ofCall`: the deadline is the engine call's (what it had left), sooner than the command's own. */
  #guard<T>(
    promise: Promise<T>,
    deadlineAt: number,
    timeoutMs: number,
    ofCall: boolean,
    budget?: CallBudget,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = new Pending<T>(this.#pending, deadlineAt, timeoutMs, ofCall, budget, resolve, reject);
      this.#pending.add(entry as Pending<unknown>);
      this.#schedule(deadlineAt);
      promise.then(
        (value) => entry.answered(value),
        (error: unknown) => entry.failed(error as Error),
      );
    });
  }

  /** Arms the timer for `earliest`, unless it is armed for a deadline as early: O(1) per call. */
  #schedule(earliest: number): void {
    if (earliest === Number.POSITIVE_INFINITY || (this.#timer !== undefined && this.#timerAt <= earliest)) return;
    clearTimeout(this.#timer);
    this.#timerAt = earliest;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.#check();
      },
      Math.max(0, earliest - Date.now()),
    );
    this.#timer.unref();
  }

  /** Fails every call past its deadline and arms the timer for the earliest left: O(calls in flight), once per deadline reached. */
  #check(): void {
    const now = Date.now();
    let earliest = Number.POSITIVE_INFINITY;
    for (const entry of this.#pending) {
      if (now < entry.deadlineAt) {
        earliest = Math.min(earliest, entry.deadlineAt);
        continue;
      }
      entry.timedOut();
    }
    this.#schedule(earliest);
  }
}
