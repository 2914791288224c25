/** One timer taken from {@link FlowTimers}: the flow it wakes, and the end of the lease this take holds on it. */
export interface TakenTimer {
  /** The flow the timer wakes. */
  readonly flowId: string;
  /** Until when this take holds the timer: no other take returns it before, unless it is scheduled again meanwhile. */
  readonly leasedUntil: number;
}

/**
 * The flows' timers, shared by every engine on one store: at most one per flow, its due time (ms on the engine's
 * clock). A timer only wakes its flow: the engine then applies a `timer` event through the ordinary commit path,
 * which decides from the flow's context what is due (docs/plans.md). `take` leases what it returns, so an engine that
 * dies holding a timer leaves it to the others once the lease ends.
 */
export interface FlowTimers {
  /**
   * Makes the flow's timer due at `dueAt`, or keeps it where it is when it is due sooner: an early wake costs one
   * refused event, a late one would hold back what is due.
   */
  schedule(flowId: string, dueAt: number): Promise<void>;
  /** Takes up to `limit` timers due at `now`, each leased until `now + leaseMs` (no other take returns it meanwhile). */
  take(now: number, leaseMs: number, limit: number): Promise<TakenTimer[]>;
  /**
   * Ends a take: the timer is set due at `next` (undefined: removed), unless it was scheduled again since the take
   * (it no longer stands at `leasedUntil`): then that schedule stands.
   */
  settle(taken: TakenTimer, next: number | undefined): Promise<void>;
}

/** Timers in this process's memory: what a store that offers none shares between the flows of one engine. */
export function memoryFlowTimers(): FlowTimers {
  const due = new Map<string, number>();
  return {
    schedule(flowId, dueAt) {
      const current = due.get(flowId);
      if (current === undefined || dueAt < current) due.set(flowId, dueAt);
      return Promise.resolve();
    },
    take(now, leaseMs, limit) {
      const taken: TakenTimer[] = [];
      for (const [flowId, at] of due) {
        if (taken.length >= limit) break;
        if (at > now) continue;
        due.set(flowId, now + leaseMs);
        taken.push({ flowId, leasedUntil: now + leaseMs });
      }
      return Promise.resolve(taken);
    },
    settle({ flowId, leasedUntil }, next) {
      if (due.get(flowId) !== leasedUntil) return Promise.resolve();
      if (next === undefined) due.delete(flowId);
      else due.set(flowId, next);
      return Promise.resolve();
    },
  };
}
