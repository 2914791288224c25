import type { FlowRecord, FlowStore, StoreCall } from '../store/flow-store.js';
import type { FlowView } from '../flows/view.js';

/** Receives every committed view of one flow. */
export type FlowListener = (view: FlowView) => void;

/**
 * Carries committed flow changes to subscribers. The default is in-process; the Redis package
 * provides one over pub/sub so every instance's subscribers see every change.
 */
export interface FlowChangeBus {
  /** Delivers a committed view to the subscribers of its flow, on every instance the bus reaches. */
  publish(view: FlowView): void | Promise<void>;
  /** Returns the unsubscribe function. */
  subscribe(flowId: string, listener: FlowListener): () => void;
  /**
   * Optional: false when a change of the flow published now would reach no listener (an in-process bus with none for
   * it); the engine then neither makes the view nor publishes it. Absent, or true: every change is published
   * (docs/decisions/1450-a-view-only-when-asked.md).
   */
  follows?(flowId: string): boolean;
  /**
   * Resolves once a subscription made with `subscribe` receives changes (a bus over Redis pub/sub
   * subscribes asynchronously); rejects when it cannot. Absent: subscriptions are live at once.
   */
  subscribed?(flowId: string): Promise<void>;
  /** Releases the bus's connections at shutdown; whoever created the bus calls it (the engine does not). */
  close?(): void | Promise<void>;
  /**
   * Optional: when this bus publishes through `store` itself (a Redis bus made with `{ store }`, on one node), the
   * writes that publish the view they commit in the same command; undefined for any other store. The engine then
   * commits a change and tells the other instances with one command (docs/decisions/1200-one-script-per-commit.md).
   */
  publishingWrite?(store: FlowStore): PublishingWrite | undefined;
}

/** Writes of a flow store that publish what they commit in the same step: see {@link FlowChangeBus.publishingWrite}. */
export interface PublishingWrite {
  /**
   * `store.compareAndSetFlow`, which, when it writes, publishes the record's view (`view()`) to the other instances in
   * the same step: never a change a follower misses. A bus may leave the publish out, and then need not call `view`,
   * when, in that same step, it finds nobody following the flow (publishing to nobody and not publishing are the
   * same; Redis: decision 1400). Returns false, writing and publishing nothing, when the version differs.
   *
   * `unseen`: the flow's id has reached nobody outside the engine call that writes it (a start still under way whose
   * id no route key, lifecycle listener or event webhook was given), so no follower of the flow can have subscribed
   * yet; only a subscriber of a pattern of channels can hear the change (Redis: decision 1830).
   *
   * `routes` (given only when {@link writesRoutes}): route keys (`FlowStore.setRoute`) pointed at the flow by the same
   * step when it writes, living as long as the record (`ttlMs`): a send's delivery receipt routes, one round trip
   * fewer than a `setRoute` after the write (decision 2010).
   */
  compareAndSetAndPublish(
    record: FlowRecord,
    expectedVersion: number,
    ttlMs: number,
    view: () => FlowView,
    call?: StoreCall,
    unseen?: boolean,
    routes?: readonly string[],
  ): Promise<boolean>;
  /**
   * True when `compareAndSetAndPublish` writes the `routes` it is given with the record; absent or false, the engine
   * gives none and writes them itself after the commit.
   */
  readonly writesRoutes?: boolean;
  /**
   * Hands the view of flow `flowId` that `compareAndSetAndPublish` committed to this instance's listeners; `view` is
   * called only when the flow has some (docs/decisions/1450-a-view-only-when-asked.md).
   */
  deliverLocally(flowId: string, view: () => FlowView): void;
}

/** In-process delivery: listeners of one flow, called in order; a throwing listener does not stop the others. */
export class MemoryChangeBus implements FlowChangeBus {
  readonly #listeners = new Map<string, Set<FlowListener>>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.#onListenerError = onListenerError;
  }

  /** Calls the flow's listeners in subscription order, at once. */
  publish(view: FlowView): void {
    const listeners = this.#listeners.get(view.id);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(view);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
  }

  /** Whether the flow has a listener: publishing a change of a flow without one does nothing. */
  follows(flowId: string): boolean {
    return this.#listeners.has(flowId);
  }

  subscribe(flowId: string, listener: FlowListener): () => void {
    let listeners = this.#listeners.get(flowId);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(flowId, listeners);
    }
    listeners.add(listener);
    return () => {
      const current = this.#listeners.get(flowId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.#listeners.delete(flowId);
    };
  }
}
