import { useCallback, useSyncExternalStore } from 'react';

/** Options of {@link useCountdown}. */
export interface UseCountdownOptions {
  /** The step the value moves by, in ms. Default 1,000: a re-render a second. */
  intervalMs?: number;
}

const getNothing = (): undefined => undefined;

/**
 * The time left until `deadline` (ms since the epoch on this device's clock, as the observer's
 * `localResendAvailableAt` and `localExpiresAt` are), rounded up to `intervalMs` and updated each
 * interval until it reaches 0; undefined without a deadline. On the server, and in the hydrating
 * render, it is undefined: there is no clock to agree on, so the markup matches.
 *
 * @example
 * const resendIn = useCountdown(flow.localResendAvailableAt);
 */
export function useCountdown(deadline: number | undefined, options: UseCountdownOptions = {}): number | undefined {
  const intervalMs = Math.max(1, options.intervalMs ?? 1000);
  const subscribe = useCallback(
    (onChange: () => void) => {
      if (deadline === undefined) return () => undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const tick = (): void => {
        onChange();
        const left = deadline - Date.now();
        if (left <= 0) return;
        // Wake at the next step boundary of the time left, so the value changes on time.
        timer = setTimeout(tick, (left % intervalMs || intervalMs) + 1);
      };
      const left = deadline - Date.now();
      if (left > 0) timer = setTimeout(tick, (left % intervalMs || intervalMs) + 1);
      return () => clearTimeout(timer);
    },
    [deadline, intervalMs],
  );
  const getSnapshot = useCallback(
    () =>
      deadline === undefined ? undefined : Math.max(0, Math.ceil((deadline - Date.now()) / intervalMs) * intervalMs),
    [deadline, intervalMs],
  );
  return useSyncExternalStore(subscribe, getSnapshot, getNothing);
}
