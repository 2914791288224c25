import type { EventWebhook } from '../../outbound/event-webhook.js';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Starts a delivery pass of the app's event webhook when the change staged events in its record's outbox (the
 * staging itself is part of the compare-and-set: `CommitLoop.write`). Not awaited: the pass runs on its own and
 * never rejects; a pass under way runs again once it ends. No step without an event webhook.
 */
export function deliverEventWebhook(webhook: Pick<EventWebhook, 'deliver'> | undefined): AfterCommitStep | undefined {
  if (webhook === undefined) return undefined;
  return (change) => {
    if (change.staged.length > 0) void webhook.deliver();
  };
}
