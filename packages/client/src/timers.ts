/**
 * The clock and timers the client runs on. The platform's by default; a test or an unusual runtime
 * passes its own (a test counts live timers to prove that unsubscribing leaves none).
 */
export interface FlowClientTimers {
  /** This device's clock, in ms since the epoch. */
  now(): number;
  /** Schedules `callback` after `ms`; returns a handle for `clearTimeout`. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a timer that `setTimeout` returned; a handle already fired is harmless. */
  clearTimeout(handle: unknown): void;
}

/** The platform's clock and timers, looked up when called (so fake timers installed later are honoured). */
export const platformTimers: FlowClientTimers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(timers: FlowClientTimers, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = (): void => {
      timers.clearTimeout(handle);
      resolve();
    };
    const handle = timers.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
