import type { CircuitChangeV1, Logger } from '@verikit/provider';

/** The circuit events of a failover provider's members, for `verikit.on` (docs/providers/README.md, "The breaker"). */
export type CircuitEventType = 'circuit-open' | 'circuit-half-open' | 'circuit-closed';

/** Every circuit event type. */
export const circuitEventTypes = [
  'circuit-open',
  'circuit-half-open',
  'circuit-closed',
] as const satisfies readonly CircuitEventType[];

/**
 * A failover member's circuit changed on this instance: `circuit-open` (new calls skip the member),
 * `circuit-half-open` (one call probes it), `circuit-closed` (it takes calls again). Belongs to no flow.
 */
export interface CircuitEvent extends CircuitChangeV1 {
  /** What happened. */
  readonly type: CircuitEventType;
}

/** A listener of circuit events. A throw or a rejection is logged. */
export type CircuitEventListener = (event: CircuitEvent) => void | Promise<void>;

/**
 * The engine's report of a change of its provider's circuits: a log line (`verikit.failover.circuit`, warn when a
 * circuit opens, info otherwise) and the event for `verikit.on`.
 */
export function circuitEventOf(change: CircuitChangeV1, logger: Logger): CircuitEvent {
  const { provider, member, state, previous, origin, at } = change;
  const fields = { provider, member, from: previous, to: state, origin };
  if (state === 'open') logger.warn('verikit.failover.circuit', fields);
  else logger.info('verikit.failover.circuit', fields);
  return { type: `circuit-${state}`, provider, member, state, previous, origin, at };
}
