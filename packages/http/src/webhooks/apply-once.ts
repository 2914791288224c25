import type { ReceiveResult } from '@verikit/core';
import { errorCode } from '@verikit/core/internal';
import { InvalidInputError, VerikitError, type Logger, type ProviderEventV1 } from '@verikit/provider';
import type { DeliveryGuard } from './delivery-guard.js';
import { malformed, type WebhookAnswer, type WebhookResponseBody } from './webhook-response.js';

/** What {@link applyOnce} needs: the engine's `receive`, the guard on message ids, and the deadline. */
export interface ApplyOnceDeps {
  readonly receive: (event: ProviderEventV1) => Promise<ReceiveResult>;
  readonly guard: DeliveryGuard;
  readonly logger: Logger;
  /** How long the delivery waits for the event to be applied. */
  readonly processingTimeoutMs: number;
  /** How long the guard's claim lives: at most this long after a claim, another delivery may take over. */
  readonly leaseMs: number;
}

const timedOut = Symbol('timed out');

/**
 * Applies a verified event once per message id: claims the id (`in-progress` when another delivery
 * holds it, `duplicate` once processed), applies the event, then records the id as processed or
 * gives it back on failure.
 *
 * The wait is bounded by `processingTimeoutMs`: past it the delivery answers `503 retry` and stops
 * waiting, while the application, which cannot be cancelled half-way through a store write, runs on
 * and still records or releases the id. The claim lapses `leaseMs` after it was taken, so a process
 * that died between claim and apply blocks redeliveries for that long only; both answers carry a
 * `Retry-After` of the seconds until the claim has lapsed at the latest.
 */
export async function applyOnce(
  deps: ApplyOnceDeps,
  event: ProviderEventV1,
  webhookId: string,
  loggedId: string | undefined,
): Promise<WebhookAnswer> {
  const { guard, logger, processingTimeoutMs, leaseMs } = deps;
  const admission = await guard.admit(webhookId);
  if (admission.kind !== 'admitted') {
    logger.info(`verikit.webhook.${admission.kind}`, { webhookId: loggedId });
    // The other claim was taken at most a lease ago: it has lapsed by then at the latest.
    return admission.kind === 'in-progress'
      ? { body: { status: 'in-progress' }, retryAfterSeconds: Math.ceil(leaseMs / 1000) }
      : { body: { status: admission.kind } };
  }
  const claimedAt = performance.now();
  const applying = apply(deps, event, webhookId, admission.attempt, loggedId);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof timedOut>((resolve) => {
    timer = setTimeout(resolve, processingTimeoutMs, timedOut);
  });
  const first = await Promise.race([applying, deadline]);
  clearTimeout(timer);
  if (first !== timedOut) return { body: first };
  logger.warn('verikit.webhook.timed-out', { webhookId: loggedId, processingTimeoutMs });
  return {
    body: {
      status: 'retry',
      error: { code: 'webhook_timeout', message: 'the event is still being applied; deliver it again later' },
    },
    retryAfterSeconds: Math.max(1, Math.ceil((leaseMs - (performance.now() - claimedAt)) / 1000)),
  };
}

/** Applies the admitted event and records the outcome on the guard. Never rejects: every failure is an answer. */
async function apply(
  deps: ApplyOnceDeps,
  event: ProviderEventV1,
  webhookId: string,
  attempt: number,
  loggedId: string | undefined,
): Promise<WebhookResponseBody> {
  const { guard, logger } = deps;
  let result: ReceiveResult;
  try {
    result = await deps.receive(event);
  } catch (error) {
    await guard.release(webhookId, attempt).catch((releaseError: unknown) => {
      logger.error('verikit.webhook.release-failed', { webhookId: loggedId, error: errorCode(releaseError) });
    });
    // An event the engine refuses as invalid is refused again on every redelivery: tell the sender so.
    if (InvalidInputError.isInstance(error)) {
      logger.warn('verikit.webhook.malformed', { webhookId: loggedId, field: error.field });
      return malformed(error);
    }
    const retryable = VerikitError.isInstance(error) && error.isRetryable;
    logger.error('verikit.webhook.apply-failed', { webhookId: loggedId, error: errorCode(error), retryable });
    return retryable
      ? {
          status: 'retry',
          error: { code: errorCode(error), message: 'the event could not be applied now; deliver it again later' },
        }
      : { status: 'error', error: { code: errorCode(error), message: 'the event could not be applied' } };
  }
  await guard.complete(webhookId).catch((error: unknown) => {
    // Applied but not recorded: a redelivery after the lease finds the flow finished and changes nothing.
    logger.warn('verikit.webhook.record-failed', { webhookId: loggedId, error: errorCode(error) });
  });
  const { outcome } = result;
  logger.info(`verikit.webhook.${outcome}`, {
    webhookId: loggedId,
    outcome,
    ...(result.flowId ? { flowId: result.flowId } : {}),
  });
  return outcome === 'applied' && result.flowId ? { status: 'applied', flowId: result.flowId } : { status: outcome };
}
