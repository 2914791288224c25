import type { StoreCall } from '@verikit/core';

/**
 * The Redis time one engine call may spend: the time during which at least one of its commands waits for an
 * answer, summed (so a provider call between two commands does not count, and two commands in flight together
 * count once). Every command of the call gets what is left as its own deadline, and none is sent once nothing is
 * left (docs/decisions/1240-one-redis-deadline-per-engine-call.md). What `RedisFlowStore.openCall` returns; the
 * engine hands it back with each command of the call.
 */
export class CallBudget implements StoreCall {
  readonly limitMs: number;
  #spentMs = 0;
  #inFlight = 0;
  #busySince = 0;
  /** Set when the call has returned: work it left running (a late provider answer) is on its own after that. */
  #ended = false;

  constructor(limitMs: number) {
    this.limitMs = limitMs;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The ms left at `now`. */
  leftAt(now: number): number {
    return this.limitMs - this.#spentMs - (this.#inFlight > 0 ? now - this.#busySince : 0);
  }

  /** A command of the call is sent at `now`. */
  begin(now: number): void {
    if (this.#inFlight === 0) this.#busySince = now;
    this.#inFlight += 1;
  }

  /** A command of the call settled at `now`. */
  settle(now: number): void {
    this.#inFlight -= 1;
    if (this.#inFlight === 0) this.#spentMs += now - this.#busySince;
  }

  end(): void {
    this.#ended = true;
  }
}

/** The budget a command was given, unless none was, it is no limit (0), or its engine call has returned. */
export function liveBudget(call: unknown): CallBudget | undefined {
  return call instanceof CallBudget && call.limitMs > 0 && !call.ended ? call : undefined;
}
