import { describe, expect, it } from 'vitest';
import { committedChange } from './after-commit.fixtures.js';
import { deliverEventWebhook } from './deliver-event-webhook.js';

/** The part of the event webhook the step uses, counting its passes. */
function countingWebhook() {
  const webhook = { passes: 0, deliver: async () => ++webhook.passes };
  return webhook;
}

describe('deliverEventWebhook', () => {
  it('starts a pass when the change staged events in the outbox, without waiting for it', () => {
    const webhook = countingWebhook();
    expect(deliverEventWebhook(webhook)!(committedChange({ staged: ['flow-1:2:sent'] }))).toBeUndefined();
    expect(webhook.passes).toBe(1);
  });

  it('starts none when the change staged nothing, or without a webhook', () => {
    const webhook = countingWebhook();
    deliverEventWebhook(webhook)!(committedChange());
    expect(webhook.passes).toBe(0);
    // Without a webhook there is no step: the list leaves it out.
    expect(deliverEventWebhook(undefined)).toBeUndefined();
  });
});
