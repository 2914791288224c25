/** How reconnects wait. */
export interface BackoffOptions {
  /** The first wait, in ms. */
  initialMs: number;
  /** The longest wait, in ms. */
  maxMs: number;
}

/**
 * The wait before reconnect attempt `attempt` (0 for the first): doubling from `initialMs` up to
 * `maxMs`, with jitter between half and all of it, so that browsers dropped together by a server
 * restart do not all come back in the same instant. A server's `Retry-After` is honoured up to `maxMs`.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt, 30));
  const delay = ceiling / 2 + (ceiling / 2) * random();
  return Math.round(Math.max(delay, Math.min(retryAfterMs ?? 0, options.maxMs)));
}
