/** A change of one failover member's circuit breaker, as the failover provider tells it (`ProviderV1.circuits`). */
export interface CircuitChangeV1 {
  /** The failover provider's name (`withFailover`'s `name`, default `failover`). */
  readonly provider: string;
  /** The member's provider name. */
  readonly member: string;
  /** `open`: new calls skip the member; `half-open`: one call probes it; `closed`: it takes calls again. */
  readonly state: 'open' | 'half-open' | 'closed';
  /** The state before, on this instance. */
  readonly previous: 'open' | 'half-open' | 'closed';
  /**
   * `local`: this instance made the change (its failures opened the circuit, its call probes it, its probe closed
   * it); with shared circuits exactly one instance tells each change as `local`. `remote`: learned from another
   * instance sharing the circuits.
   */
  readonly origin: 'local' | 'remote';
  /** When this instance made or learned the change (ms since the epoch, this instance's clock). */
  readonly at: number;
}

/**
 * The circuit breakers of a provider's members, for the engine to report (a failover provider has them): the
 * engine subscribes once and logs and tells every change (docs/providers/README.md, "The breaker").
 */
export interface CircuitsV1 {
  /** Calls `listener` with every change of a member's circuit from now on; returns the function that stops it. */
  subscribe(listener: (change: CircuitChangeV1) => void): () => void;
}
