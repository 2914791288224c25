import { expiresOf } from './record-expiry.js';

const oneByte = /^[^\u0100-\uffff]*$/;

/**
 * A key as one flat string. Keys arrive built in pieces (`verikit:` + `flow:` + id), which V8 keeps
 * as a chain of strings even once flattened: a flat copy saves about 45 bytes per flow at 100k flows
 * (`pnpm bench engine`). Only keys of one-byte characters are copied, through latin1, which maps
 * each of them to itself; others are kept as given.
 */
function flatKey(key: string): string {
  return oneByte.test(key) ? Buffer.from(key, 'latin1').toString('latin1') : key;
}

/** Knobs of an {@link ExpiringMap}; the defaults suit production, tests inject `now`. */
export interface ExpiringMapOptions {
  /**
   * The clock the timer sweeps by. Keyv stamps each record's expiry with `Date.now()`, so outside
   * tests keep the default.
   */
  readonly now?: () => number;
  /** The width of one expiry bucket, and the pause between two timer sweeps (ms). Default 1000. */
  readonly slotMs?: number;
  /**
   * The most bucket entries one timer sweep looks at before yielding to other work; the rest are
   * swept right after, so a wave of expiries never blocks the event loop for long. Default 10,000.
   */
  readonly sweepBudget?: number;
}

/**
 * The `Map` under the embedded Keyv, which drops expired records without their being read. Keyv
 * deletes an expired key only when something reads it, so flows, routes, limits and webhook markers
 * that nobody reads again would stay forever (docs/decisions/0020-expiring-memory-store.md).
 *
 * Every write of a record with an expiry files its key in the bucket of the time slot it expires
 * in; a sweep walks only the buckets whose slot has passed, so its work is the number of entries
 * filed there, never the size of the map. Before deleting, the sweep reads the record's current
 * expiry: a key written again with a later expiry is filed anew rather than deleted. Sweeps run on
 * an unref'd timer that holds the map only weakly: it never keeps the process, nor a map nobody
 * uses, alive, and it stops while nothing waits to expire.
 */
export class ExpiringMap extends Map<string, string> {
  /** Keys by the slot (`floor(expires / slotMs)`) they come due in. */
  readonly #buckets = new Map<number, string[]>();
  readonly #now: () => number;
  readonly #slotMs: number;
  readonly #sweepBudget: number;
  readonly #self = new WeakRef(this);
  /** Every slot before this one has been swept. */
  #nextSlot: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: ExpiringMapOptions = {}) {
    super();
    this.#now = options.now ?? Date.now;
    this.#slotMs = options.slotMs ?? 1000;
    this.#sweepBudget = options.sweepBudget ?? 10_000;
    this.#nextSlot = Math.floor(this.#now() / this.#slotMs);
  }

  override set(given: string, value: string): this {
    const previous = super.get(given);
    // The map and the expiry bucket hold the same string.
    const key = previous === undefined ? flatKey(given) : given;
    super.set(key, value);
    const expires = expiresOf(value);
    if (expires === undefined) return this;
    const slot = this.#slotFor(expires);
    // A key filed no later than this slot is still filed (a sweep files it again when it finds a
    // later expiry), so rewriting a record with the same or a later expiry files nothing more.
    const previousExpires = expiresOf(previous);
    if (previousExpires === undefined || this.#slotFor(previousExpires) > slot) this.#file(key, slot);
    return this;
  }

  override clear(): void {
    super.clear();
    this.#buckets.clear();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** How many keys wait in expiry buckets (a key may wait in two until the first comes due). */
  get pendingExpiries(): number {
    let count = 0;
    for (const bucket of this.#buckets.values()) count += bucket.length;
    return count;
  }

  /**
   * Deletes the records that expired before `now`, looking at no more than `budget` entries of the
   * buckets whose slot has passed. The timer calls it; tests and benches call it with an explicit
   * `now`. Returns how many records it deleted.
   */
  sweep(now: number = this.#now(), budget = Number.POSITIVE_INFINITY): number {
    const due = Math.floor(now / this.#slotMs);
    let deleted = 0;
    let looked = 0;
    while (this.#nextSlot < due && looked < budget) {
      const bucket = this.#buckets.get(this.#nextSlot);
      if (bucket === undefined) {
        this.#nextSlot = this.#nextFiledSlot(due);
        continue;
      }
      while (bucket.length > 0 && looked < budget) {
        const key = bucket.pop()!;
        looked += 1;
        const expires = expiresOf(super.get(key));
        if (expires === undefined) continue; // deleted, or written again without an expiry
        if (expires < now) {
          super.delete(key);
          deleted += 1;
        } else {
          this.#file(key, this.#slotFor(expires)); // written again with a later expiry
        }
      }
      if (bucket.length === 0) {
        this.#buckets.delete(this.#nextSlot);
        this.#nextSlot += 1;
      }
    }
    return deleted;
  }

  #slotFor(expires: number): number {
    // A slot already swept would never be looked at again: file such a key in the next one.
    return Math.max(Math.floor(expires / this.#slotMs), this.#nextSlot);
  }

  /** The slot after #nextSlot to look at: the next one, or after a long pause the lowest filed one. */
  #nextFiledSlot(due: number): number {
    if (due - this.#nextSlot <= this.#buckets.size) return this.#nextSlot + 1;
    let lowest = due;
    for (const slot of this.#buckets.keys()) if (slot < lowest) lowest = slot;
    return lowest;
  }

  #file(key: string, slot: number): void {
    let bucket = this.#buckets.get(slot);
    if (bucket === undefined) {
      bucket = [];
      this.#buckets.set(slot, bucket);
    }
    bucket.push(key);
    if (this.#timer === undefined) this.#schedule(this.#slotMs);
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(ExpiringMap.#onTimer, delayMs, this.#self);
    this.#timer.unref();
  }

  /** Static, and given a WeakRef: a pending timer must not hold the map. */
  static #onTimer(self: WeakRef<ExpiringMap>): void {
    const map = self.deref();
    if (map === undefined) return;
    const now = map.#now();
    map.sweep(now, map.#sweepBudget);
    map.#timer = undefined;
    if (map.#buckets.size === 0) return;
    // Budget spent with slots still due: go on right after other work has had its turn.
    map.#schedule(map.#nextSlot < Math.floor(now / map.#slotMs) ? 0 : map.#slotMs);
  }
}
