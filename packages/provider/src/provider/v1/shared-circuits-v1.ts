/** A member's circuit as the instances sharing it see it: closed, or held (open or half-open) for a time. */
export type SharedCircuitStateV1 = ClosedCircuitV1 | HeldCircuitV1;

/** A circuit in rotation. */
export interface ClosedCircuitV1 {
  /** The member takes calls. */
  readonly state: 'closed';
  /** When the shared store read or made this state, in its own clock (ms): an older state than one known is stale. */
  readonly at?: number;
}

/** A circuit out of rotation for a time. */
export interface HeldCircuitV1 {
  /** `open`: skipped, no probe yet. `half-open`: an instance holds the one probe. */
  readonly state: 'open' | 'half-open';
  /** How long it stays so, in ms: until the probe is due (`open`), or until the probe's claim ends (`half-open`). */
  readonly remainingMs: number;
  /** When the shared store read or made this state, in its own clock (ms): an older state than one known is stale. */
  readonly at?: number;
}

/** What {@link SharedCircuitsV1.markOpen} did. */
export interface CircuitOpenedV1 {
  /** True when this call opened the circuit; false when another instance had. */
  readonly opened: boolean;
  /** The circuit after the call. */
  readonly state: SharedCircuitStateV1;
}

/** What {@link SharedCircuitsV1.markClosed} did. */
export interface CircuitClosedV1 {
  /** True when this call closed the circuit; false when it was closed already. */
  readonly closed: boolean;
  /** The circuit after the call. */
  readonly state: ClosedCircuitV1;
}

/** What {@link SharedCircuitsV1.claimProbe} found. */
export interface ProbeClaimV1 {
  /** True for the one instance that may send the probe. */
  readonly claimed: boolean;
  /** The circuit after the call: `half-open` when claimed; otherwise why not (still open, probed elsewhere, closed). */
  readonly state: SharedCircuitStateV1;
}

/**
 * Where the circuit breakers of the failover providers of many app instances share their members' circuits, so one
 * instance's open reaches the others, one probe runs across them all, and a close brings every instance back
 * (`createRedisCircuits` of `@verikit/redis`). Only changes go through it, never an ordinary call. Every method may
 * reject (the shared store is down): the breaker then goes on with its own process's state and warns.
 *
 * A circuit is named by the failover provider's name (`group`) and the member's.
 */
export interface SharedCircuitsV1 {
  /**
   * Follows the circuits of `members` of `group`: `listener` is told each member's state as read now (and read
   * again after a lost connection), then every change another instance makes. States may arrive out of order (a read
   * answered after a later change): each carries `at`, and the breaker ignores one older than it knows. Returns the
   * function that stops.
   */
  follow(
    group: string,
    members: readonly string[],
    listener: (member: string, state: SharedCircuitStateV1) => void,
  ): () => void;
  /**
   * Opens `member` for `openMs` (no probe before), unless it is open already; `afterProbe`: this instance's probe
   * failed, so it opens again whatever the state. `opened` says whether this call opened it; `state` is the
   * circuit after the call.
   */
  markOpen(group: string, member: string, openMs: number, afterProbe: boolean): Promise<CircuitOpenedV1>;
  /**
   * Claims the one probe of `member` for `leaseMs`, when it is open and its time has come: `claimed` for the one
   * instance that may send it; otherwise `state` says why not (still open, another instance probing, or closed).
   */
  claimProbe(group: string, member: string, leaseMs: number): Promise<ProbeClaimV1>;
  /** Closes `member` (its probe succeeded); `closed` says whether this call closed it. */
  markClosed(group: string, member: string): Promise<CircuitClosedV1>;
}
