/**
 * A `Map` of at most `capacity` entries that forgets the least recently remembered first: what an engine keeps of
 * the flows it used last (the latest record of each, decision 1430), and the Redis change bus of the flows it found
 * followed (decision 1400). A `Map` keeps insertion order, which is all such a list needs.
 */
export class RecentlyUsed<V> {
  readonly #capacity: number;
  readonly #entries = new Map<string, V>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Remembers `value` under `key` as the most recent entry; past the capacity, the oldest goes. */
  remember(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }

  forget(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
