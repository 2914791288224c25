import { InvalidInputError } from '@verikit/provider';

/** How long a store waits for a connection before a call fails, unless told. */
export const defaultConnectTimeoutMs = 2000;
/** How long the commands of one engine call may wait for Redis in all, unless told. */
export const defaultCommandTimeoutMs = 5000;

/**
 * A reconnect strategy that fails the first connection at once (the caller gets a `StoreError`, and
 * the next call tries again) and, once connected, retries a lost connection every 50 ms to 1 s with
 * jitter. Commands made while reconnecting fail at once: the offline queue is off.
 */
export function failFastReconnect(): { strategy: (retries: number) => number | false; onReady: () => void } {
  let everReady = false;
  return {
    strategy: (retries) => (everReady ? Math.min(50 * 2 ** retries, 1000) + Math.floor(Math.random() * 50) : false),
    onReady: () => {
      everReady = true;
    },
  };
}

/**
 * Refuses a Redis URL node-redis cannot use (`127.0.0.1:6379`, `localhost`, `http://…`) with an
 * `InvalidInputError` naming the option, instead of node-redis's bare `TypeError` at connect. The
 * value is never echoed: it can hold a password.
 */
export function checkRedisUrl(url: unknown, field: string): void {
  if (typeof url === 'string' && /^rediss?:\/\/\S/.test(url)) return;
  const problem =
    typeof url !== 'string'
      ? 'must be a string'
      : /^[a-z][a-z0-9+.-]*:\/\//i.test(url)
        ? 'must start with redis:// or rediss://'
        : 'has no scheme: write it as redis://host:6379 (or rediss:// for TLS)';
  throw new InvalidInputError([{ field, message: problem }]);
}
