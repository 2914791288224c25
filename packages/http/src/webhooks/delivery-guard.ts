import type { FlowStore } from '@verikit/core';

/** What {@link DeliveryGuard.admit} decided for one delivery of a message. */
export type Admission =
  /** The message was processed already: change nothing, answer success. */
  | { readonly kind: 'duplicate' }
  /** Another delivery of the same message is being processed right now: the sender should retry later. */
  | { readonly kind: 'in-progress' }
  /** This delivery may apply the message. Call `complete` or `release` with `attempt` afterwards. */
  | { readonly kind: 'admitted'; readonly attempt: number };

/** Options of {@link DeliveryGuard}. */
export interface DeliveryGuardOptions {
  /** How long a processed message id is remembered. */
  readonly replayTtlMs: number;
  /** How long one delivery may hold the message before another may take over (a crashed process). */
  readonly leaseMs: number;
}

const doneMarker = 'done';
const retryPrefix = 'retry:';

/**
 * Accepts each webhook message once, on the store's own primitives, so it works across processes:
 *
 * - `webhook:<id>` (a secondary key, read with `getRoute`) says `done`, or `retry:<n>` after
 *   attempt `n` failed;
 * - `webhook:<id>:<n>` is claimed (`store.claim`, a lease) by the one delivery that runs attempt `n`.
 *
 * A processed message answers `duplicate`. A delivery whose application failed releases the
 * message by recording `retry:<n>`, so the sender's next delivery runs attempt `n + 1` instead of
 * being taken for a duplicate. Two deliveries at once: one is admitted, the other is told
 * `in-progress`. A process that dies mid-attempt holds the message until its lease expires.
 *
 * (docs/decisions/0202-webhook-claims-released-on-failure.md)
 */
export class DeliveryGuard {
  readonly #store: FlowStore;
  readonly #options: DeliveryGuardOptions;

  constructor(store: FlowStore, options: DeliveryGuardOptions) {
    this.#store = store;
    this.#options = options;
  }

  async admit(id: string): Promise<Admission> {
    const marker = await this.#store.getRoute(markerKey(id));
    if (marker === doneMarker) return { kind: 'duplicate' };
    const attempt = nextAttempt(marker);
    const claimed = await this.#store.claim(`${markerKey(id)}:${attempt}`, this.#options.leaseMs);
    return claimed ? { kind: 'admitted', attempt } : { kind: 'in-progress' };
  }

  /** Records the message as processed: later deliveries are duplicates. */
  async complete(id: string): Promise<void> {
    await this.#store.setRoute(markerKey(id), doneMarker, this.#options.replayTtlMs);
  }

  /** Gives the message back after a failed attempt, so the next delivery applies it afresh. */
  async release(id: string, attempt: number): Promise<void> {
    const marker = await this.#store.getRoute(markerKey(id));
    if (marker === doneMarker || nextAttempt(marker) > attempt) return;
    await this.#store.setRoute(markerKey(id), `${retryPrefix}${attempt}`, this.#options.replayTtlMs);
  }
}

function markerKey(id: string): string {
  return `webhook:${id}`;
}

function nextAttempt(marker: string | undefined): number {
  if (marker === undefined || !marker.startsWith(retryPrefix)) return 0;
  const failed = Number(marker.slice(retryPrefix.length));
  return Number.isSafeInteger(failed) && failed >= 0 ? failed + 1 : 0;
}
