import { ProviderUnavailableError, type Logger } from '@verikit/provider';
import {
  BrokenCircuitError,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleWhen,
  type CircuitBreakerPolicy,
} from 'cockatiel';

/** When a member of `withFailover` is taken out of rotation, and when it is tried again. */
export interface FailoverBreakerOptions {
  /**
   * Consecutive outage failures (a 5xx, a timeout, a dropped or refused connection: any
   * `ProviderUnavailableError`) after which new calls skip the member. Default 5.
   */
  readonly threshold?: number;
  /** How long an open member is skipped before one call probes it (half-open). Default 30 000 ms. */
  readonly halfOpenAfterMs?: number;
}

const names: Record<CircuitState, string> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'isolated',
};

/** What a member's breaker answers when it is open: the call was not made. */
export const skipped: unique symbol = Symbol('skipped');

/** A member's circuit breaker: runs calls while it is closed, skips them while it is open. */
export interface MemberBreaker {
  /** Runs `call`, or returns {@link skipped} without calling when the circuit is open. */
  run<T>(call: () => Promise<T>, logger: Logger): Promise<T | typeof skipped>;
}

/**
 * One circuit breaker (cockatiel's, consecutive failures) for a failover member. Only outages count:
 * a `ProviderUnavailableError`; a rejection, bad input or refused credentials leave the count alone. A
 * change of state is logged (`verikit.failover.circuit`) with the member's name through the logger of
 * the call that caused it. The state lives in this process only (docs/decisions/0960-failover-breaker.md).
 */
export function createMemberBreaker(member: string, options: FailoverBreakerOptions = {}): MemberBreaker {
  const policy: CircuitBreakerPolicy = circuitBreaker(
    handleWhen((error) => ProviderUnavailableError.isInstance(error)),
    { halfOpenAfter: options.halfOpenAfterMs ?? 30_000, breaker: new ConsecutiveBreaker(options.threshold ?? 5) },
  );
  const report = (before: CircuitState, logger: Logger) => {
    const after = policy.state;
    if (after === before) return;
    const fields = { member, from: names[before], to: names[after] };
    if (after === CircuitState.Open) logger.warn('verikit.failover.circuit', fields);
    else logger.info('verikit.failover.circuit', fields);
  };
  return {
    async run(call, logger) {
      const before = policy.state;
      try {
        return await policy.execute(call);
      } catch (error) {
        if (error instanceof BrokenCircuitError) {
          logger.debug('verikit.failover.skip', { member, circuit: names[policy.state] });
          return skipped;
        }
        throw error;
      } finally {
        report(before, logger);
      }
    },
  };
}
