/**
 * A set of listeners with hooks for the first subscription and the last unsubscription, as
 * TanStack Query's `Subscribable`: an observer starts its work when someone listens and stops it
 * when nobody does. `subscribe` is bound, so it can be handed to `useSyncExternalStore` as it is.
 */
export class Subscribable<TListener extends (...args: never[]) => void = () => void> {
  /** The current subscriptions, one wrapper per `subscribe` call. */
  protected listeners = new Set<TListener>();

  constructor() {
    this.subscribe = this.subscribe.bind(this);
  }

  /** Adds a listener; returns the function that removes it (calling it twice is harmless). */
  subscribe(listener: TListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const entry = ((...args: Parameters<TListener>) => listener(...args)) as TListener;
    this.listeners.add(entry);
    this.onSubscribe();
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      this.listeners.delete(entry);
      this.onUnsubscribe();
    };
  }

  /** True while anyone listens. */
  hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  /** Called after every subscription: a subclass starts its work on the first. */
  protected onSubscribe(): void {}

  /** Called after every unsubscription: a subclass stops its work when none is left. */
  protected onUnsubscribe(): void {}
}
