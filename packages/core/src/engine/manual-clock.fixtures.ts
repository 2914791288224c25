/** A clock that moves only when told: core's tests move time by hand with it. */
export class ManualClock {
  #now = Date.UTC(2026, 0, 1);

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  set(ms: number): void {
    this.#now = ms;
  }
}
