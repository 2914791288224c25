import { StoreError } from '../errors/store-error.js';
import { safeStoreCause } from '../store/safe-store-cause.js';

/**
 * Serializes this process's commits to one flow; other processes are kept out by compare-and-set.
 * When the store failed the work ahead (a `StoreError`), the work queued behind it fails at once
 * with a StoreError of its own instead of trying in turn: with a store that hangs, the k-th caller
 * would otherwise wait k times the store's timeout.
 *
 * Work on a flow with nothing queued starts at once, in the caller's turn: no promise to wait on first. This runs
 * for every commit.
 */
export class FlowQueue {
  /** Per flow, the last work queued: settles when it has, with the store's failure it met (undefined for none). */
  readonly #tails = new Map<string, Promise<Error | undefined>>();

  run<T>(flowId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(flowId);
    const current =
      previous === undefined
        ? startNow(work)
        : previous.then((storeFailure) => {
            if (storeFailure !== undefined) {
              throw new StoreError('the flow store failed the call queued ahead of this one on the same flow', {
                cause: storeFailure,
              });
            }
            return work();
          });
    const settled: Promise<Error | undefined> = current.then(
      () => this.#release(flowId, settled, undefined),
      (error: unknown) =>
        this.#release(flowId, settled, StoreError.isInstance(error) ? safeStoreCause(error) : undefined),
    );
    this.#tails.set(flowId, settled);
    return current;
  }

  /** Forgets the flow's queue when `settled` is still its last work; returns the failure for the work behind it. */
  #release(flowId: string, settled: Promise<Error | undefined>, failure: Error | undefined): Error | undefined {
    if (this.#tails.get(flowId) === settled) this.#tails.delete(flowId);
    return failure;
  }
}

/** `work()`, with a synchronous throw as a rejection, as when it ran in a `then`. */
function startNow<T>(work: () => Promise<T>): Promise<T> {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error as Error);
  }
}
