import type { SendGuard } from '../../guard/send-guard.js';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Tells the send guard what a phone flow's commit announced: a send that went out (the `sent` lifecycle event: its
 * provider, channel and number price it for the cost ledger, and the tripwire counts it), and a verification (the
 * tripwire's other half). Only phone flows: their sends are the ones a
 * rate card prices per channel. No step without a guard, nor with a guard that counts neither (no tripwire, no rate
 * card: the default guard's limits are all taken before the send).
 */
export function countSends(guard: SendGuard | undefined): AfterCommitStep | undefined {
  if (guard?.countsOutcomes !== true) return undefined;
  return ({ record, events, now }) => {
    if (record.kind !== 'phone' || events.length === 0) return;
    const { phoneNumber, channel, sentBy } = record.context as {
      phoneNumber?: unknown;
      channel?: unknown;
      sentBy?: unknown;
    };
    if (typeof phoneNumber !== 'string') return;
    for (const event of events) {
      if (event.type === 'sent')
        guard.sent(
          {
            phoneNumber,
            flowId: record.id,
            provider: typeof sentBy === 'string' ? sentBy : undefined,
            channel: typeof channel === 'string' ? channel : undefined,
          },
          now,
        );
      else if (event.type === 'verified') guard.verified(phoneNumber, record.id, now);
    }
  };
}
