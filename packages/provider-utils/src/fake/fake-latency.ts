/** The latency a fake adds to every answer; changeable while it runs. */
export interface FakeLatency {
  /** The delay in ms; a fake's `setLatency` writes it, every later answer reads it. */
  ms: number;
}

/** Waits `ms` (0: not at all), so a fake answers like a distant service. */
export function delay(ms: number): Promise<void> {
  return ms <= 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
}

/** A latency between 0 and 60 s, whole milliseconds. */
export function clampLatency(ms: number): number {
  return Number.isFinite(ms) ? Math.max(0, Math.min(60_000, Math.trunc(ms))) : 0;
}
