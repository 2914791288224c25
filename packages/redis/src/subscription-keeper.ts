import type { MessageListener, SubscriberLink } from './subscriber-link.js';

/** One channel the bus wants subscribed. */
interface Wanted {
  /** Live: Redis confirmed it and the connection carrying it has not been lost since. */
  live: boolean;
  /** A SUBSCRIBE for it is in flight. */
  sending: boolean;
  /** A SUBSCRIBE was sent at least once (an UNSUBSCRIBE is then due when it is dropped). */
  sent: boolean;
  /** Resolves when it is next live. */
  whenLive: Promise<void>;
  markLive: () => void;
  /** Why the last attempt failed. */
  lastError?: unknown;
}

/** Options of a {@link SubscriptionKeeper}. */
export interface SubscriptionKeeperOptions {
  readonly link: SubscriberLink;
  readonly listener: MessageListener;
  /** How long one connection or SUBSCRIBE attempt may take before it counts as failed and is retried. */
  readonly attemptTimeoutMs: number;
  /** After a lost connection, once every wanted channel is live again. */
  readonly resynced: (channels: readonly string[]) => void;
  /** The first failed attempt of a run of failures (every one is retried). */
  readonly failed: (channel: string | undefined, error: unknown) => void;
}

const maxRetryDelayMs = 500;

/**
 * Keeps the channels the bus wants subscribed, whatever happens to the connection: it waits for the
 * connection before subscribing (a channel wanted in the first millisecond is sent once connected),
 * retries what failed with a backoff of 25 to 500 ms, and after a lost connection resubscribes
 * everything and reports a resync once every channel is live again. SUBSCRIBE and UNSUBSCRIBE of one
 * channel reach Redis in the order they were asked for.
 */
export class SubscriptionKeeper {
  readonly #options: SubscriptionKeeperOptions;
  readonly #wanted = new Map<string, Wanted>();
  /** Per channel, the last SUBSCRIBE/UNSUBSCRIBE sent, so they reach Redis in order. */
  readonly #chains = new Map<string, Promise<void>>();
  #syncing: Promise<void> | undefined;
  #again = false;
  #lost = false;
  #retries = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: SubscriptionKeeperOptions) {
    this.#options = options;
  }

  /** Wants `channel` subscribed (until {@link drop}). */
  want(channel: string): void {
    if (this.#closed || this.#wanted.has(channel)) return;
    const wanted: Wanted = {
      live: false,
      sending: false,
      sent: false,
      whenLive: Promise.resolve(),
      markLive: () => {},
    };
    this.#pend(wanted);
    this.#wanted.set(channel, wanted);
    this.#sync();
  }

  /** No longer wants `channel`: unsubscribes it if it was ever sent. */
  drop(channel: string): void {
    const wanted = this.#wanted.get(channel);
    if (!wanted) return;
    this.#wanted.delete(channel);
    if (!wanted.sent) return;
    const done = this.#chain(channel, () => this.#options.link.unsubscribe(channel, this.#options.listener));
    done.catch((error: unknown) => this.#options.failed(channel, error));
  }

  /** Resolves when `channel` is live (it must be wanted). */
  live(channel: string): Promise<void> | undefined {
    return this.#wanted.get(channel)?.whenLive;
  }

  /** Why the last attempt for `channel` failed, if it did. */
  lastError(channel: string): unknown {
    return this.#wanted.get(channel)?.lastError;
  }

  /** The connection carrying the subscriptions was lost: messages may have been missed. */
  lost(): void {
    if (this.#closed) return;
    this.#lost = true;
    for (const wanted of this.#wanted.values()) if (wanted.live) this.#pend(wanted);
    this.#sync();
  }

  /** Stops retrying; waits (up to `waitMs`) for the SUBSCRIBE/UNSUBSCRIBE commands in flight. */
  async close(waitMs: number): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#wanted.clear();
    if (!this.#options.link.up || this.#chains.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.#chains.values()]),
      new Promise((resolve) => (timer = setTimeout(resolve, waitMs))),
    ]);
    clearTimeout(timer);
  }

  #pend(wanted: Wanted): void {
    wanted.live = false;
    wanted.whenLive = new Promise<void>((resolve) => (wanted.markLive = resolve));
  }

  /** One pass at a time; a request made during a pass runs another pass after it. */
  #sync(): void {
    if (this.#syncing) {
      this.#again = true;
      return;
    }
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#syncing = this.#pass().finally(() => {
      this.#syncing = undefined;
      if (this.#again && !this.#closed) {
        this.#again = false;
        this.#sync();
      }
    });
  }

  async #pass(): Promise<void> {
    if (this.#closed) return;
    const link = this.#options.link;
    let failure: { channel?: string; error: unknown } | undefined;
    try {
      await this.#bounded(link.ready());
    } catch (error) {
      for (const wanted of this.#wanted.values()) if (!wanted.live) wanted.lastError = error;
      failure = { error };
    }
    if (!failure) {
      const attempts = [...this.#wanted].filter(([, wanted]) => !wanted.live && !wanted.sending);
      const errors = await Promise.all(
        attempts.map(async ([channel, wanted]) => ({ channel, error: await this.#attempt(channel, wanted) })),
      );
      failure = errors.find((attempt) => attempt.error !== undefined);
    }
    if (this.#closed) return;
    // Reported once per run of failures, not at every retry.
    if (failure && this.#retries === 0) this.#options.failed(failure.channel, failure.error);
    if (failure || [...this.#wanted.values()].some((wanted) => !wanted.live)) {
      this.#retryTimer = setTimeout(() => this.#sync(), Math.min(25 * 2 ** this.#retries++, maxRetryDelayMs));
      this.#retryTimer.unref();
      return;
    }
    this.#retries = 0;
    if (this.#lost) {
      this.#lost = false;
      if (this.#wanted.size > 0) this.#options.resynced([...this.#wanted.keys()]);
    }
  }

  /** Sends one SUBSCRIBE; resolves with the error when it did not make the channel live. */
  async #attempt(channel: string, wanted: Wanted): Promise<unknown> {
    wanted.sending = true;
    wanted.sent = true;
    try {
      await this.#chain(channel, () => this.#options.link.subscribe(channel, this.#options.listener));
      // node-redis confirms at once a channel it already holds, even while its connection is down.
      if (!this.#options.link.up) throw new Error('the subscriber connection is down');
      if (this.#wanted.get(channel) === wanted) {
        wanted.live = true;
        wanted.lastError = undefined;
        wanted.markLive();
      }
      return undefined;
    } catch (error) {
      wanted.lastError = error ?? new Error('subscription failed');
      return wanted.lastError;
    } finally {
      wanted.sending = false;
    }
  }

  #chain(channel: string, operation: () => Promise<void>): Promise<void> {
    const previous = this.#chains.get(channel) ?? Promise.resolve();
    // Bounded, so a command that never gets an answer (queued for a node that is gone) does not hold up the next.
    const result = previous.then(() => this.#bounded(operation()));
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.#chains.set(channel, settled);
    void settled.then(() => {
      if (this.#chains.get(channel) === settled) this.#chains.delete(channel);
    });
    return result;
  }

  /** Rejects when `promise` takes longer than one attempt may. */
  #bounded<T>(promise: Promise<T>): Promise<T> {
    const ms = this.#options.attemptTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}
