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
  readonly #listeners = new Set<() => void>();

  /** Calls `listener` whenever the estimate changes (deadlines on this device's clock move); returns the unsubscribe. */
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
    if (this.offsetMs === before) return false;
    for (const listener of [...this.#listeners]) listener();
    return true;
  }

  /** Records a response's `Date` header, for a request sent at `sentAt` and answered at `receivedAt`. */
  observeResponse(response: Response, sentAt: number, receivedAt: number): boolean {
    const header = response.headers.get('date');
    if (header === null) return false;
    const date = Date.parse(header);
    if (!Number.isFinite(date)) return false;
    return this.observe(date, date + 999, sentAt, receivedAt);
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
