/** A clock that moves only when told: pass it to `createVerikit({ clock })` to test expiry and cooldowns. */
export class ManualClock {
  #now: number;

  constructor(start: number = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  /** The time set, in ms since the epoch: only `advance` and `set` move it. */
  now(): number {
    return this.#now;
  }

  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('ms must be a non-negative number');
    this.#now += ms;
  }

  /** Jumps to a time, in ms since the epoch (backwards too, to test a clock that steps back). */
  set(ms: number): void {
    this.#now = ms;
  }
}
