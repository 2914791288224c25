import type { GuardRateLimiter, SendGuardStore } from '@verikit/core';

/**
 * The send guard's counts in memory on a virtual clock: fixed windows, as the memory and Redis stores count, but
 * windows that pass in the replay's time rather than the machine's (a day of traffic replays in seconds).
 */
export function virtualGuardStore(clock: { now(): number }): SendGuardStore {
  return {
    limiter({ points, durationSeconds }): GuardRateLimiter {
      const windows = new Map<string, { endsAt: number; used: number }>();
      const windowOf = (key: string | number) => {
        const now = clock.now();
        let window = windows.get(String(key));
        if (window === undefined || window.endsAt <= now) {
          window = { endsAt: now + durationSeconds * 1000, used: 0 };
          windows.set(String(key), window);
        }
        return window;
      };
      return {
        consume: async (key, taken = 1) => {
          const window = windowOf(key);
          if (window.used + taken > points) throw { msBeforeNext: window.endsAt - clock.now() };
          window.used += taken;
          return undefined as never;
        },
        reward: async (key, given = 1) => {
          const window = windowOf(key);
          window.used = Math.max(0, window.used - given);
          return undefined as never;
        },
      };
    },
  };
}
