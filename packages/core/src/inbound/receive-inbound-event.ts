import { z } from 'zod';
import {
  InvalidInputError,
  RateLimitedError,
  VerikitError,
  parseInput,
  type Logger,
  type ProviderEventV1,
} from '@verikit/provider';
import { onFirstUse, providerEventSchema } from '../inputs/inputs.js';
import { errorCode } from '../logging/error-code.js';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import { OnceClaims, type Admission } from './once-claims.js';
import type { FlowView } from '../flows/view.js';

/** What applying one provider event did. */
export type AppliedEvent =
  /** A live flow took the event. */
  | { readonly outcome: 'applied'; readonly flowId: string; readonly view: FlowView }
  /** No flow waits for it: it ended, expired, or was never started here. */
  | { readonly outcome: 'no-active-flow'; readonly flowId?: string };

/**
 * An inbound event: something a provider told us (a USSD result, a delivery receipt, a dial-in session), typed, with
 * the id its redeliveries share.
 */
export interface InboundEvent {
  /**
   * Identifies the message across redeliveries (a verified webhook's id): the same message sent
   * twice has the same id. 1 to 256 visible ASCII characters. Logged unless `idIsPrivate`: it must
   * hold no secret and no personal data.
   */
  readonly id: string;
  /** What the provider told us, parsed from a verified delivery. */
  readonly event: ProviderEventV1;
  /** The id is derived from the payload (an unsigned delivery's body hash): never logged. Default false. */
  readonly idIsPrivate?: boolean;
}

/** @deprecated Since 0.3: the same type, named {@link InboundEvent}. Removed in the next minor release (docs/migration.md). */
export type ProviderDelivery = InboundEvent;

/** How long a delivery waits and how long its id is remembered. */
export interface ReceiveOptions {
  /**
   * How long the call waits for the event to be applied before it resolves `timed-out`, in ms.
   * Default 10,000; 10 to 120,000. The delivery's claim lives a little longer (its lease: this
   * timeout plus 5 s, or plus half of it when shorter), so a process that dies mid-delivery blocks
   * redeliveries only that long.
   */
  readonly processingTimeoutMs?: number;
  /** How long a processed delivery id is remembered, so a replay is a `duplicate`. Default 24 h. */
  readonly replayTtlMs?: number;
}

/** What `verikit.receive` did with a delivery. A failure rejects instead, with the claim given back. */
export interface ReceiveResult {
  /**
   * `applied`: a live flow took the event. `no-active-flow`: none waits for it (ended, expired, or never
   * started here). `duplicate`: this delivery id was applied before; nothing changed. `in-progress`: another
   * delivery of the id is being applied (or one died applying it). `timed-out`: not applied within
   * `processingTimeoutMs`; the application runs on and still records or gives back the claim.
   */
  readonly outcome: 'applied' | 'no-active-flow' | 'duplicate' | 'in-progress' | 'timed-out';
  /** The flow that took the event (`applied`), or that no longer waits for it, when known. */
  readonly flowId?: string;
  /** That flow's view after the event (`applied`). */
  readonly view?: FlowView;
  /** `in-progress` and `timed-out`: deliver again after this many ms, when the claim has lapsed at the latest. */
  readonly retryAfterMs?: number;
}

/** The defaults of {@link ReceiveOptions}. */
export const receiveDefaults = Object.freeze({
  /** Ten seconds: well within the time a sender waits for an answer. */
  processingTimeoutMs: 10_000,
  /** A day: far longer than any sender keeps redelivering. */
  replayTtlMs: 24 * 60 * 60_000,
});

/**
 * The lease of a delivery's claim: the processing timeout plus a margin (5 s, or half the timeout
 * when that is shorter) for the answer to be written after the deadline. A claim outliving its
 * processing deadline by more would only keep a dead process's message from being redelivered.
 */
export function inboundLeaseMs(processingTimeoutMs: number): number {
  return processingTimeoutMs + Math.min(5_000, Math.ceil(processingTimeoutMs / 2));
}

const deliverySchema = onFirstUse(() =>
  z.strictObject({
    id: z.string({ error: 'must be a string' }).regex(/^[\x21-\x7e]{1,256}$/, {
      error: 'must be 1 to 256 visible ASCII characters',
    }),
    event: providerEventSchema(),
    idIsPrivate: z.boolean({ error: 'must be a boolean' }).optional(),
  }),
);

/**
 * The rules of {@link ReceiveOptions}: the one home of `processingTimeoutMs` and `replayTtlMs`, which the webhook
 * options of `@verikit/http` take as they are.
 */
export const receiveOptionsSchema = z.strictObject({
  processingTimeoutMs: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be whole milliseconds' })
    .min(10)
    .max(120_000)
    .optional(),
  replayTtlMs: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be whole milliseconds' })
    .positive()
    .optional(),
});

const timedOut = Symbol('timed out');

/**
 * `verikit.receive`: applies a provider event once per delivery id. Claims the id (`in-progress`
 * when another delivery holds it, `duplicate` once processed), applies the event, then records the
 * id as processed, or gives it back on failure so that the sender's redelivery applies it afresh.
 *
 * The wait is bounded by `processingTimeoutMs`: past it the call resolves `timed-out`, while the
 * application, which cannot be cancelled half-way through a store write, runs on and still records
 * or releases the id. The claim lapses a lease after it was taken, so a process that died between
 * claim and apply blocks redeliveries for that long only.
 */
export async function receiveInboundEvent(
  deps: {
    store: FlowStore;
    logger: Logger;
    apply: (event: ProviderEventV1) => Promise<AppliedEvent>;
    /** The engine call's share of the store. */
    call?: StoreCall;
  },
  rawDelivery: InboundEvent,
  rawOptions: ReceiveOptions = {},
): Promise<ReceiveResult> {
  const delivery = parseInput(deliverySchema(), rawDelivery);
  const options = parseInput(receiveOptionsSchema, rawOptions ?? {}, 'options');
  const processingTimeoutMs = options.processingTimeoutMs ?? receiveDefaults.processingTimeoutMs;
  const leaseMs = inboundLeaseMs(processingTimeoutMs);
  const claims = new OnceClaims(deps.store, {
    replayTtlMs: options.replayTtlMs ?? receiveDefaults.replayTtlMs,
    leaseMs,
    call: deps.call,
  });
  const { logger } = deps;
  const webhookId = delivery.idIsPrivate === true ? undefined : delivery.id;

  let admission: Admission;
  try {
    admission = await claims.admit(delivery.id);
  } catch (error) {
    logger.error('verikit.inbound.failed', {
      webhookId,
      error: errorCode(error),
      retryable: VerikitError.isInstance(error) && error.isRetryable,
    });
    throw error;
  }
  if (admission.kind !== 'admitted') {
    logger.info(`verikit.inbound.${admission.kind}`, { webhookId });
    // The other claim was taken at most a lease ago: it has lapsed by then at the latest.
    return admission.kind === 'in-progress'
      ? { outcome: 'in-progress', retryAfterMs: leaseMs }
      : { outcome: 'duplicate' };
  }
  const claimedAt = performance.now();
  const applying = apply(admission.attempt);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(resolve, processingTimeoutMs, timedOut);
  });
  // The application settles on its own (recording or releasing the claim) whether or not it is awaited.
  applying.catch(() => undefined);
  const first = await Promise.race([applying, deadline]);
  clearTimeout(timer);
  if (first !== timedOut) return first;
  logger.warn('verikit.inbound.timed-out', { webhookId, processingTimeoutMs });
  return { outcome: 'timed-out', retryAfterMs: Math.max(1, leaseMs - (performance.now() - claimedAt)) };

  async function apply(attempt: number): Promise<AppliedEvent> {
    let result: AppliedEvent;
    try {
      result = await deps.apply(delivery.event as ProviderEventV1);
    } catch (error) {
      await claims.release(delivery.id, attempt).catch((releaseError: unknown) => {
        logger.error('verikit.inbound.release-failed', { webhookId, error: errorCode(releaseError) });
      });
      if (InvalidInputError.isInstance(error)) {
        logger.warn('verikit.inbound.malformed', { webhookId, field: error.field });
      } else if (RateLimitedError.isInstance(error)) {
        // Too many wrong dial-in references (the guard logged which limit): the dialler's doing, not an outage.
        logger.warn('verikit.inbound.limited', { webhookId });
      } else {
        const retryable = VerikitError.isInstance(error) && error.isRetryable;
        logger.error('verikit.inbound.apply-failed', { webhookId, error: errorCode(error), retryable });
      }
      throw error;
    }
    await claims.complete(delivery.id).catch((error: unknown) => {
      // Applied but not recorded: a redelivery after the lease finds the flow finished and changes nothing.
      logger.warn('verikit.inbound.record-failed', { webhookId, error: errorCode(error) });
    });
    logger.info(`verikit.inbound.${result.outcome}`, {
      webhookId,
      outcome: result.outcome,
      ...(result.flowId ? { flowId: result.flowId } : {}),
    });
    return result;
  }
}
