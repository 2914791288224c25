/**
 * Milliseconds left until a local-clock `deadline`, never below 0; undefined when there is no
 * deadline. The observer gives deadlines already moved to this device's clock
 * (`localResendAvailableAt`, `localExpiresAt`), so this is all a countdown needs.
 */
export function remainingMs(deadline: number | undefined, now: number): number | undefined {
  if (deadline === undefined || !Number.isFinite(deadline)) return undefined;
  return Math.max(0, deadline - now);
}
