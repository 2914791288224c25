/** Where the engine reads the time. Inject one in tests to move time by hand. */
export interface Clock {
  /** The current time in ms since the epoch. */
  now(): number;
}

/** The system clock: `Date.now` itself, no function of ours around it. */
export const systemClock: Clock = { now: Date.now };
