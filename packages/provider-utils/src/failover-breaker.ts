import {
  ProviderUnavailableError,
  type CircuitChangeV1,
  type Logger,
  type SharedCircuitStateV1,
  type SharedCircuitsV1,
} from '@verikit/provider';
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';

/** When a member of `withFailover` is taken out of rotation, and when it is tried again. */
export interface FailoverBreakerOptions {
  /**
   * Consecutive outage failures (a 5xx, a timeout, a dropped or refused connection: any
   * `ProviderUnavailableError`) after which new calls skip the member. Default 5.
   */
  readonly threshold?: number;
  /**
   * How long an open member is skipped before one call probes it (half-open); with `shared`, also how long one
   * instance holds the probe. Default 30 000 ms.
   */
  readonly halfOpenAfterMs?: number;
  /** Told every change of a member's circuit, half-open included, as it happens. A throw is ignored. */
  readonly onStateChange?: (change: FailoverCircuitChange) => void;
  /**
   * Where the breaker reads the time for `halfOpenAfterMs`: an object with `now()` in ms since the epoch, such as the
   * engine's clock (a manual clock in tests, the carrier simulator's virtual clock). Default: `Date.now()`.
   */
  readonly clock?: {
    /** The time, in ms since the epoch. */
    now(): number;
  };
  /**
   * Shares each member's circuit with the other instances of the app (`createRedisCircuits` of `@verikit/redis`):
   * an open on one instance reaches them all, one probe runs across them, a close brings them all back. Ordinary
   * calls never wait for it. When it fails, each instance goes on with its own state and warns. Default: none,
   * each process on its own.
   */
  readonly shared?: SharedCircuitsV1;
}

/** A change of one failover member's circuit, told to `breaker.onStateChange` and to `provider.circuits`. */
export type FailoverCircuitChange = CircuitChangeV1;

type Circuit = CircuitChangeV1['state'];

/** What a member's breaker answers when it skips a call: the call was not made. */
export const skipped: unique symbol = Symbol('skipped');

/** What a member's breaker needs beside its options. */
export interface MemberBreakerHost {
  /** The failover provider's name: circuits are shared per failover name and member name. */
  readonly group: string;
  readonly member: string;
  readonly threshold: number;
  readonly halfOpenAfterMs: number;
  readonly shared: SharedCircuitsV1 | undefined;
  /** This instance's clock, ms since the epoch. */
  readonly now: () => number;
  /** Told every change. */
  readonly tell: (change: CircuitChangeV1) => void;
}

/**
 * The circuit breaker of one failover member (docs/decisions/1300-failover-circuits-shared-through-redis.md).
 * While closed, calls run through cockatiel's consecutive breaker, which counts outages (any
 * `ProviderUnavailableError`; a rejection, bad input or refused credentials leave the count alone) and opens after
 * `threshold`: nothing else is done per call. Once open, this class holds the circuit: calls skip the member until
 * `halfOpenAfterMs` has passed, then one call claims the probe (across instances with `shared`) while the others go
 * on skipping, and the probe's outcome closes the circuit (a fresh cockatiel breaker) or opens it again.
 */
export class MemberBreaker {
  readonly #host: MemberBreakerHost;
  #policy: CircuitBreakerPolicy;
  /** While open or half-open: no call before this time (this instance's clock). Undefined while closed. */
  #openUntil: number | undefined;
  /** This instance is claiming or sending the probe. */
  #probing = false;
  /** The state last told. */
  #told: Circuit = 'closed';
  /** The newest shared state known, in the shared store's clock: an older one (a late read or message) is stale. */
  #sharedAt = 0;
  /**
   * The shared state this instance last wrote (an open, a claim, a close) and its time: the same state at the same
   * time told back by `follow` is this instance's own message coming back, possibly after a later change here.
   */
  #wroteState: { state: SharedCircuitStateV1['state']; at: number } | undefined;
  /** The newest state another instance told while this one claimed or probed: its claim's answer may be older. */
  #heard: SharedCircuitStateV1 | undefined;
  /** Opens and closes this instance has sent to the shared circuits and not yet had answered. */
  #writing = 0;
  /**
   * The newest state told while a write of this instance was unanswered: possibly that write's own message, which
   * the subscriber can deliver before the write's answer gives its time. Judged once the answers are in.
   */
  #parked: SharedCircuitStateV1 | undefined;
  /** The shared circuits failed, and that was warned, since their last answer. */
  #sharedDown = false;

  constructor(host: MemberBreakerHost) {
    this.#host = host;
    this.#policy = this.#newPolicy();
  }

  /** Runs `call`, or returns {@link skipped} without calling while the member is out of rotation. */
  async run<T>(call: () => Promise<T>, logger: Logger): Promise<T | typeof skipped> {
    if (this.#openUntil === undefined) {
      const policy = this.#policy;
      try {
        return await policy.execute(call);
      } catch (error) {
        if (error instanceof BrokenCircuitError) return this.#skip(logger);
        if (policy === this.#policy && policy.state !== CircuitState.Closed && this.#openUntil === undefined)
          this.#openHere(logger);
        throw error;
      }
    }
    if (this.#probing || this.#host.now() < this.#openUntil) return this.#skip(logger);
    this.#probing = true;
    let closedElsewhere = false;
    try {
      const claim = await this.#claim(logger);
      const heard = this.#heard;
      this.#heard = undefined;
      if (!claim.claimed) {
        // The claim's answer, then what was told meanwhile (a close made after the claim read the circuit): the
        // newer of the two stands.
        this.adopt(claim.state, true);
        if (heard !== undefined) this.adopt(heard, true);
        closedElsewhere = this.#openUntil === undefined;
        if (!closedElsewhere) return this.#skip(logger);
      } else {
        this.#change('half-open', 'local');
        try {
          const result = await call();
          this.#probeDone(true, logger);
          return result;
        } catch (error) {
          // As cockatiel counts it: only an outage is a failure; any other answer shows the member is back.
          this.#probeDone(!ProviderUnavailableError.isInstance(error), logger);
          throw error;
        }
      }
    } finally {
      this.#probing = false;
      this.#heard = undefined;
    }
    return this.run(call, logger);
  }

  /**
   * Takes the state another instance made (`follow`), or the shared state a claim found (`claiming`). While this
   * instance claims or probes, a state told is kept aside: after a claim that failed it is taken if newer than the
   * claim's answer; after this instance's own probe it is dropped (the probe decides). While an open or a close this
   * instance sent is unanswered, a state told waits for the answer: this instance's own message can come back first,
   * and is known as its own only once the answer says its time (docs/decisions/1840-own-early-messages-wait-for-the-answer.md).
   */
  adopt(state: SharedCircuitStateV1, claiming = false): void {
    if (this.#probing && !claiming) {
      if (this.#heard === undefined || state.at === undefined || state.at >= (this.#heard.at ?? 0)) this.#heard = state;
      return;
    }
    if (this.#writing > 0 && !claiming) {
      if (this.#parked === undefined || state.at === undefined || state.at >= (this.#parked.at ?? 0))
        this.#parked = state;
      return;
    }
    if (this.#own(state) || !this.#fresh(state)) return;
    if (state.state === 'closed') {
      if (this.#openUntil === undefined) return;
      this.#reset();
      this.#change('closed', 'remote');
      return;
    }
    this.#openUntil = this.#host.now() + Math.max(0, state.remainingMs);
    this.#change(state.state, 'remote');
  }

  /**
   * Sends a write to the shared circuits, counted as in flight until it settles: then `answered` or `failed` runs, and
   * once no write is in flight the state told meanwhile is judged (this instance's own message is known by then).
   */
  #send<T>(write: Promise<T>, answered: (answer: T) => void, failed: (error: unknown) => void): void {
    this.#writing += 1;
    const settled = (): void => {
      const parked = this.#parked;
      if (this.#writing > 0 || parked === undefined) return;
      this.#parked = undefined;
      this.adopt(parked);
    };
    write.then(
      (answer) => {
        this.#writing -= 1;
        answered(answer);
        settled();
      },
      (error: unknown) => {
        this.#writing -= 1;
        failed(error);
        settled();
      },
    );
  }

  /** Notes a shared state this instance wrote, so its message coming back is known as its own. */
  #wrote(state: SharedCircuitStateV1): void {
    if (state.at !== undefined) this.#wroteState = { state: state.state, at: state.at };
  }

  /** Whether `state` is the one this instance last wrote: two writes of one key never share both state and time. */
  #own(state: SharedCircuitStateV1): boolean {
    return state.at !== undefined && state.state === this.#wroteState?.state && state.at === this.#wroteState.at;
  }

  /** Whether `state` is no older than the newest known; if so, it becomes the newest. */
  #fresh(state: SharedCircuitStateV1): boolean {
    if (state.at === undefined) return true;
    if (state.at < this.#sharedAt) return false;
    this.#sharedAt = state.at;
    return true;
  }

  #skip(logger: Logger): typeof skipped {
    logger.debug('verikit.failover.skip', { member: this.#host.member, circuit: this.#told });
    return skipped;
  }

  /** This instance's failures opened the circuit: skip at once, then tell the others (and who opened it). */
  #openHere(logger: Logger): void {
    const { shared, group, member, halfOpenAfterMs } = this.#host;
    this.#openUntil = this.#host.now() + halfOpenAfterMs;
    if (shared === undefined) {
      this.#change('open', 'local');
      return;
    }
    this.#send(
      shared.markOpen(group, member, halfOpenAfterMs, false),
      ({ opened, state }) => {
        this.#sharedAnswered();
        if (!opened) this.adopt(state);
        else {
          this.#wrote(state);
          if (this.#fresh(state)) this.#change('open', 'local');
        }
      },
      (error) => {
        this.#sharedFailed(error, logger);
        this.#change('open', 'local');
      },
    );
  }

  /** The probe claim: across instances with `shared`; in this process alone, `#probing` already makes it one. */
  async #claim(logger: Logger): Promise<{ claimed: boolean; state: SharedCircuitStateV1 }> {
    const { shared, group, member, halfOpenAfterMs } = this.#host;
    const alone = { claimed: true, state: { state: 'half-open', remainingMs: halfOpenAfterMs } } as const;
    if (shared === undefined) return alone;
    try {
      const claim = await shared.claimProbe(group, member, halfOpenAfterMs);
      this.#sharedAnswered();
      if (claim.claimed) {
        this.#wrote(claim.state);
        this.#fresh(claim.state);
      }
      return claim;
    } catch (error) {
      this.#sharedFailed(error, logger);
      return alone;
    }
  }

  /** The probe's outcome: `back` closes the circuit, otherwise it opens again for `halfOpenAfterMs`. */
  #probeDone(back: boolean, logger: Logger): void {
    const { shared, group, member, halfOpenAfterMs } = this.#host;
    if (back) this.#reset();
    else this.#openUntil = this.#host.now() + halfOpenAfterMs;
    const state = back ? 'closed' : 'open';
    if (shared === undefined) {
      this.#change(state, 'local');
      return;
    }
    const written: Promise<{ changed: boolean; state: SharedCircuitStateV1 }> = back
      ? shared.markClosed(group, member).then((answer) => ({ changed: answer.closed, state: answer.state }))
      : shared.markOpen(group, member, halfOpenAfterMs, true).then((answer) => ({ ...answer, changed: answer.opened }));
    this.#send(
      written,
      (answer) => {
        this.#sharedAnswered();
        if (answer.changed) this.#wrote(answer.state);
        this.#fresh(answer.state);
        // Not changed by this call: another instance's probe (after this one's claim ran out) got there first.
        this.#change(state, answer.changed ? 'local' : 'remote');
      },
      (error) => {
        this.#sharedFailed(error, logger);
        this.#change(state, 'local');
      },
    );
  }

  #reset(): void {
    this.#openUntil = undefined;
    this.#policy = this.#newPolicy();
  }

  #change(state: Circuit, origin: CircuitChangeV1['origin']): void {
    if (state === this.#told) return;
    const previous = this.#told;
    this.#told = state;
    const { group, member } = this.#host;
    this.#host.tell({ provider: group, member, state, previous, origin, at: this.#host.now() });
  }

  #sharedAnswered(): void {
    this.#sharedDown = false;
  }

  /** Warned once per run of failures: the breaker goes on with this process's own state. */
  #sharedFailed(error: unknown, logger: Logger): void {
    if (this.#sharedDown) return;
    this.#sharedDown = true;
    const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
    logger.warn('verikit.failover.shared-unavailable', {
      member: this.#host.member,
      error: typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown',
    });
  }

  #newPolicy(): CircuitBreakerPolicy {
    const { threshold, halfOpenAfterMs } = this.#host;
    return circuitBreaker(
      handleWhen((error) => ProviderUnavailableError.isInstance(error)),
      { halfOpenAfter: halfOpenAfterMs, breaker: new ConsecutiveBreaker(threshold) },
    );
  }
}
