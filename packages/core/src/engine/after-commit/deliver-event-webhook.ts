import type { EventWebhook } from '../../outbound/event-webhook.js';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Starts a delivery pass of the app's event webhook when the change staged events in its record's outbox (the
 * staging itself is part of the compare-and-set: `CommitLoop.write`). Not awaited: the pass runs on its own and
 * never rejects; a pass under way runs again once it ends.
 */
export function deliverEventWebhook(webhook: Pick<EventWebhook, 'deliver'> | undefined): AfterCommitStep {
  return (change) => {
    if (webhook !== undefined && change.staged.length > 0) void webhook.deliver();
  };
}
