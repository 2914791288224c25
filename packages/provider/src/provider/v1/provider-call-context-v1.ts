import type { Logger } from '../../logger.js';

/** What every provider call receives besides its input. */
export interface ProviderCallContextV1 {
  /**
   * Aborted when the engine's deadline for the call passes (at most 1% of the timeout, and 10 ms, after it). Calls
   * that start within those milliseconds share one signal, so it may abort after this call settled: listen to it only
   * while the call runs.
   */
  readonly signal: AbortSignal;
  /** A deterministic id for this effect (`flowId:effect:n`); providers with idempotency support pass it on. */
  readonly idempotencyKey: string;
  /** Where the provider may log. Never log secrets or personal data through it. */
  readonly logger: Logger;
}
