import { RateLimitedError } from '@verikit/core';

/** How many live streams one client, and one flow, may hold on this server. */
export interface StreamLimits {
  /** Live streams per client (its client key: an address, or an IPv6 /64). Default 20. */
  perClient?: number;
  /** Live streams per flow, whoever opens them. Default 5. */
  perFlow?: number;
}

/** The defaults: a page needs one stream; a few tabs and reconnects fit well below these. */
const defaultStreamLimits: Readonly<Required<StreamLimits>> = { perClient: 20, perFlow: 5 };

/** How long a refused client is told to wait before trying again: a stream frees up when another ends. */
const retryAfterMs = 5000;

/**
 * Counts the live streams of this server per client and per flow, so one client cannot hold the
 * server's memory with thousands of open streams (each holds a subscription and buffers). Every
 * way of serving a stream takes a slot here before it subscribes and gives it back when it ends;
 * the excess is a `RateLimitedError` (429 with `Retry-After`). Counts are per process: a stream lives
 * in the memory of the process that serves it.
 */
export class StreamCounter {
  readonly #limits: Readonly<Required<StreamLimits>>;
  readonly #perClient = new Map<string, number>();
  readonly #perFlow = new Map<string, number>();

  constructor(limits: StreamLimits = {}) {
    this.#limits = { ...defaultStreamLimits, ...limits };
  }

  /**
   * Takes a slot for a stream of `flowId` by `client` (undefined: counted per flow only), or throws
   * a `RateLimitedError`. Whoever takes a slot gives it back with {@link release}, once.
   */
  take(client: string | undefined, flowId: string): void {
    const { perClient, perFlow } = this.#limits;
    if ((this.#perFlow.get(flowId) ?? 0) >= perFlow)
      throw this.#refusal(`at most ${perFlow} live streams per flow: close one first`);
    if (client !== undefined && (this.#perClient.get(client) ?? 0) >= perClient)
      throw this.#refusal(`at most ${perClient} live streams per client: close one first`);
    add(this.#perFlow, flowId, 1);
    if (client !== undefined) add(this.#perClient, client, 1);
  }

  /** Gives back a slot {@link take} gave (a stream keeps its client and flow, not a closure per stream). */
  release(client: string | undefined, flowId: string): void {
    add(this.#perFlow, flowId, -1);
    if (client !== undefined) add(this.#perClient, client, -1);
  }

  /** Live streams now, for tests and metrics. */
  get live(): number {
    let total = 0;
    for (const count of this.#perFlow.values()) total += count;
    return total;
  }

  #refusal(message: string): RateLimitedError {
    return new RateLimitedError(message, Date.now() + retryAfterMs, { retryAfterMs });
  }
}

function add(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
