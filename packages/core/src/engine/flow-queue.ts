import { StoreError } from '../errors/store-error.js';
import { safeStoreCause } from '../store/safe-store-cause.js';

/**
 * Serializes this process's commits to one flow; other processes are kept out by compare-and-set.
 * When the store failed the work ahead (a `StoreError`), the work queued behind it fails at once
 * with a StoreError of its own instead of trying in turn: with a store that hangs, the k-th caller
 * would otherwise wait k times the store's timeout.
 */
export class FlowQueue {
  readonly #tails = new Map<string, Promise<Error | undefined>>();

  async run<T>(flowId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(flowId);
    const current = (previous ?? Promise.resolve(undefined)).then((storeFailure) => {
      if (storeFailure !== undefined) {
        throw new StoreError('the flow store failed the call queued ahead of this one on the same flow', {
          cause: storeFailure,
        });
      }
      return work();
    });
    const settled: Promise<Error | undefined> = current.then(
      () => undefined,
      (error: unknown) => (StoreError.isInstance(error) ? safeStoreCause(error) : undefined),
    );
    this.#tails.set(flowId, settled);
    try {
      return await current;
    } finally {
      if (this.#tails.get(flowId) === settled) this.#tails.delete(flowId);
    }
  }
}
