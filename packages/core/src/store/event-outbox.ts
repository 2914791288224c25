/** One event taken from an {@link EventOutbox}: its id, and how many times it has been taken (this time included). */
export interface TakenEvent {
  /** The event's id (`<flowId>:<version>:<type>`). */
  readonly id: string;
  /** How many times it has been taken, this time included: 1 on the first attempt. */
  readonly attempt: number;
}

/**
 * The index of lifecycle events waiting to be delivered to the app's webhook, shared by every engine on one
 * store: ids and due times only, the events themselves live in their flow's record (`FlowRecord.outbox`).
 * `take` leases what it returns, so two engines never hold the same event at once
 * (docs/decisions/1140-event-webhooks-outbox-in-the-flow-record.md).
 */
export interface EventOutbox {
  /** Adds event ids, due at `dueAt`; an id already there keeps its due time and attempts. */
  add(ids: readonly string[], dueAt: number): Promise<void>;
  /**
   * Takes up to `limit` ids due at `now`, each leased until `now + leaseMs` (no other take returns it
   * meanwhile), and counts an attempt on each.
   */
  take(now: number, leaseMs: number, limit: number): Promise<TakenEvent[]>;
  /** Makes an id due again at `dueAt` (a retry); nothing when it was removed meanwhile. */
  retry(id: string, dueAt: number): Promise<void>;
  /** Removes ids: delivered, given up, or never committed. */
  remove(ids: readonly string[]): Promise<void>;
}

/** An outbox in this process's memory: what a store that offers none shares between the engines on it. */
export function memoryEventOutbox(): EventOutbox {
  const entries = new Map<string, { due: number; attempt: number }>();
  return {
    add(ids, dueAt) {
      for (const id of ids) if (!entries.has(id)) entries.set(id, { due: dueAt, attempt: 0 });
      return Promise.resolve();
    },
    take(now, leaseMs, limit) {
      const taken: TakenEvent[] = [];
      for (const [id, entry] of entries) {
        if (taken.length >= limit) break;
        if (entry.due > now) continue;
        entry.due = now + leaseMs;
        entry.attempt += 1;
        taken.push({ id, attempt: entry.attempt });
      }
      return Promise.resolve(taken);
    },
    retry(id, dueAt) {
      const entry = entries.get(id);
      if (entry !== undefined) entry.due = dueAt;
      return Promise.resolve();
    },
    remove(ids) {
      for (const id of ids) entries.delete(id);
      return Promise.resolve();
    },
  };
}
