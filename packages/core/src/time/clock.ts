/** Where the engine reads the time. Inject one in tests to move time by hand. */
export interface Clock {
  /** The current time in ms since the epoch. */
  now(): number;
}

/**
 * The system clock: `Date.now` read when asked, not the function held at import, so that a test faking `Date`
 * (`vi.useFakeTimers()`) after verikit is imported moves an engine given no clock.
 */
export const systemClock: Clock = { now: () => Date.now() };
