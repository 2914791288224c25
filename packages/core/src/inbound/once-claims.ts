import type { FlowStore, StoreCall } from '../store/flow-store.js';
import { inboundEventAttemptKey, inboundEventMarkerKey } from '../keys/store-keys.js';

/** What {@link OnceClaims.admit} decided for one attempt at a thing to do once (an inbound event, a keyed start). */
export type Admission =
  /** The message was processed already: change nothing. */
  | { readonly kind: 'duplicate' }
  /** Another delivery of the same message is being processed right now: the sender should retry later. */
  | {
      readonly kind: 'in-progress';
      /** The attempt the other delivery holds: a start fences it off by it (decision 1542). */
      readonly attempt: number;
    }
  /** This delivery may apply the message. Call `complete` or `release` with `attempt` afterwards. */
  | { readonly kind: 'admitted'; readonly attempt: number };

/** Options of {@link OnceClaims}. */
export interface OnceClaimsOptions {
  /** How long a processed message id is remembered. */
  readonly replayTtlMs: number;
  /** How long one delivery may hold the message before another may take over (a crashed process). */
  readonly leaseMs: number;
  /** Where the marker and the attempts live. Default: an inbound event's (`webhook:<id>`); a keyed start gives its own. */
  readonly keys?: {
    readonly marker: (id: string) => string;
    readonly attempt: (id: string, attempt: number) => string;
  };
  /** The engine call's share of the store. */
  readonly call?: StoreCall | undefined;
}

const inboundEventKeys = { marker: inboundEventMarkerKey, attempt: inboundEventAttemptKey };

const doneMarker = 'done';
const retryPrefix = 'retry:';

/**
 * Does a thing once, on the store's own primitives, so it works across processes. Its two uses are named by their
 * keys: an inbound event, by the id its redeliveries share (the default), and a keyed start, by its idempotency key
 * (`startClaimMarkerKey`, `startClaimAttemptKey`; decision 1262). For an inbound event:
 *
 * - the marker (`inboundEventMarkerKey`, a secondary key) says `done`, or `retry:<n>` after attempt `n` failed;
 * - the attempt (`inboundEventAttemptKey`) is claimed (`store.claim`, a lease) by the one delivery that runs it.
 *
 * A processed message is a `duplicate`. A delivery whose application failed releases the message by
 * recording `retry:<n>`, so the sender's next delivery runs attempt `n + 1` instead of being taken
 * for a duplicate. Two deliveries at once: one is admitted, the other is told `in-progress`. A
 * process that dies mid-attempt holds the message until its lease expires.
 *
 * (docs/decisions/0202-webhook-claims-released-on-failure.md). A keyed start is given back when it is refused
 * before its flow is written (decision 1262).
 */
export class OnceClaims {
  readonly #store: FlowStore;
  readonly #options: OnceClaimsOptions;
  readonly #keys: NonNullable<OnceClaimsOptions['keys']>;

  constructor(store: FlowStore, options: OnceClaimsOptions) {
    this.#store = store;
    this.#options = options;
    this.#keys = options.keys ?? inboundEventKeys;
  }

  async admit(id: string): Promise<Admission> {
    const { call } = this.#options;
    const marker = await this.#store.getRoute(this.#keys.marker(id), call);
    if (marker === doneMarker) return { kind: 'duplicate' };
    const attempt = nextAttempt(marker);
    const claimed = await this.#store.claim(this.#keys.attempt(id, attempt), this.#options.leaseMs, call);
    return claimed ? { kind: 'admitted', attempt } : { kind: 'in-progress', attempt };
  }

  /** Records the message as processed: later deliveries are duplicates. */
  async complete(id: string): Promise<void> {
    await this.#store.setRoute(this.#keys.marker(id), doneMarker, this.#options.replayTtlMs, this.#options.call);
  }

  /** Gives the message back after a failed attempt, so the next delivery applies it afresh. */
  async release(id: string, attempt: number): Promise<void> {
    const { call } = this.#options;
    const marker = await this.#store.getRoute(this.#keys.marker(id), call);
    if (marker === doneMarker || nextAttempt(marker) > attempt) return;
    await this.#store.setRoute(this.#keys.marker(id), `${retryPrefix}${attempt}`, this.#options.replayTtlMs, call);
  }
}

function nextAttempt(marker: string | undefined): number {
  if (marker === undefined || !marker.startsWith(retryPrefix)) return 0;
  const failed = Number(marker.slice(retryPrefix.length));
  return Number.isSafeInteger(failed) && failed >= 0 ? failed + 1 : 0;
}
