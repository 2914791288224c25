/**
 * Serializes async work per key within one process: the compare-and-set of the in-memory store.
 * Waiters form a chain; the entry is removed when the last one finishes, so idle keys cost nothing.
 */
export class KeyLock {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key);
    let release!: () => void;
    const tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#tails.set(key, tail);
    try {
      if (previous) await previous;
      return await work();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
