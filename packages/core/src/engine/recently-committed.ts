import type { Loaded } from './flow-records.js';

/**
 * The record this engine committed or read last for each of its most recently used flows, at most `capacity` of
 * them (the oldest use goes first): the next event on such a flow starts from it instead of reading the store, one
 * store command fewer per user action (docs/decisions/1430-start-from-the-record-committed-here.md). A record that
 * another instance changed since is no danger: the compare-and-set fails on its version and the commit reads the
 * store. A `Map` keeps insertion order, which is all a least-recently-used list needs here.
 */
export class RecentlyCommitted {
  readonly #capacity: number;
  readonly #loaded = new Map<string, Loaded>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get(flowId: string): Loaded | undefined {
    return this.#loaded.get(flowId);
  }

  /** Remembers `loaded` as the flow's latest record, as the most recent use. */
  remember(loaded: Loaded): void {
    const flowId = loaded.record.id;
    this.#loaded.delete(flowId);
    this.#loaded.set(flowId, loaded);
    if (this.#loaded.size > this.#capacity) this.#loaded.delete(this.#loaded.keys().next().value!);
  }

  /** Forgets the flow: a commit reads the store (what was held was refused, or nothing was), and may find nothing. */
  forget(flowId: string): void {
    this.#loaded.delete(flowId);
  }

  get size(): number {
    return this.#loaded.size;
  }
}
