import type { Logger, PhoneCapabilityV1 } from '@verikit/provider';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Tells the phone provider that a delivery receipt committed to a phone flow said its newest code arrived (the
 * `delivered` lifecycle event), naming that send by its requestId and the flow's sends so far: a failover with a
 * learning router counts it for the route that sent (docs/routing.md). Not awaited; a rejection is logged
 * (`verikit.phone.delivered-failed`), never the commit's error. No step when the provider is not told (it has no
 * `phone.delivered`).
 */
export function tellDelivery(phone: PhoneCapabilityV1 | undefined, logger: Logger): AfterCommitStep | undefined {
  if (typeof phone?.delivered !== 'function') return undefined;
  return ({ record, events }) => {
    if (record.kind !== 'phone' || !events.some((event) => event.type === 'delivered')) return;
    const { requestId, sendCount } = record.context as { requestId?: unknown; sendCount?: unknown };
    if (typeof requestId !== 'string' || typeof sendCount !== 'number') return;
    phone.delivered!({ requestId, sends: sendCount }, { logger }).catch((error: unknown) =>
      logger.warn('verikit.phone.delivered-failed', {
        flowId: record.id,
        error: typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined,
      }),
    );
  };
}
