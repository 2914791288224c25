/**
 * Estimates the offset between the server's clock and this device's (`server - local`, in ms) from
 * what answers reveal: the `Date` header (whole seconds, readable same-origin or when the server
 * exposes it) and a view's `serverTime` (when the server sends it). Each sample bounds the offset
 * to an interval; the estimate is the intersection of the samples, and within it the value
 * closest to 0: the local clock is trusted unless the server proves it wrong, which keeps
 * countdowns steady when both clocks agree. Samples that contradict the others (a clock was set)
 * start the estimate anew.
 */
export class ServerClock {
  #low = -Infinity;
  #high = Infinity;
  #answered = false;
  readonly #listeners = new Set<() => void>();

  /**
   * Whether the server has answered yet: before that the estimate is a guess (0); after, it holds what the
   * answers told (nothing, for an answer that carried no time: then the device's clock is trusted).
   */
  get answered(): boolean {
    return this.#answered;
  }

  /**
   * Calls `listener` whenever the estimate changes (deadlines on this device's clock move), and on the
   * first answer (the estimate is known, even when it stays 0); returns the unsubscribe.
   */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The current estimate of `server - local`, in ms. */
  get offsetMs(): number {
    if (this.#low > 0) return this.#low;
    if (this.#high < 0) return this.#high;
    return 0;
  }

  /** A server time in this device's clock. */
  toLocal(serverMs: number): number {
    return serverMs - this.offsetMs;
  }

  /**
   * Records that the server's clock read between `serverLow` and `serverHigh` at some local moment
   * between `localLow` and `localHigh`. Returns true when the estimate changed.
   */
  observe(serverLow: number, serverHigh: number, localLow: number, localHigh: number): boolean {
    if (![serverLow, serverHigh, localHigh].every(Number.isFinite) || Number.isNaN(localLow) || localLow > localHigh)
      return false;
    const before = this.offsetMs;
    const low = serverLow - localHigh;
    const high = serverHigh - localLow;
    const nextLow = Math.max(this.#low, low);
    const nextHigh = Math.min(this.#high, high);
    if (nextLow > nextHigh) {
      this.#low = low;
      this.#high = high;
    } else {
      this.#low = nextLow;
      this.#high = nextHigh;
    }
    const changed = this.offsetMs !== before;
    if (changed) this.#notify();
    else this.#heard();
    return changed;
  }

  /**
   * Records a response's `Date` header, for a request sent at `sentAt` and answered at `receivedAt`; an
   * answer without one (a cross-origin server that does not expose it) still counts as an answer.
   */
  observeResponse(response: Response, sentAt: number, receivedAt: number): boolean {
    const header = response.headers.get('date');
    const date = header === null ? Number.NaN : Date.parse(header);
    if (Number.isFinite(date) && this.observe(date, date + 999, sentAt, receivedAt)) return true;
    this.#heard();
    return false;
  }

  /** The first answer makes the estimate known, even unchanged. */
  #heard(): void {
    if (!this.#answered) this.#notify();
  }

  #notify(): void {
    this.#answered = true;
    for (const listener of [...this.#listeners]) listener();
  }

  /**
   * Records a view's `serverTime`, computed at some local moment between `sentAt` and `receivedAt`
   * (for a pushed event the send time is unknown: pass `-Infinity`).
   */
  observeServerTime(serverTime: number | undefined, sentAt: number, receivedAt: number): boolean {
    if (serverTime === undefined) return false;
    return this.observe(serverTime, serverTime, sentAt, receivedAt);
  }
}
