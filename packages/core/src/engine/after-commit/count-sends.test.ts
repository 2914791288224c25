import { describe, expect, it } from 'vitest';
import { silentLogger } from '@verikit/provider';
import { SendGuard } from '../../guard/send-guard.js';
import { resolveGuardOptions } from '../../guard/guard-options.js';
import { SecretBox } from '../../secrets/secrets.js';
import { memorySendGuardStore } from '../../store/send-guard-store.js';
import type { FlowEvent } from '../../flows/view.js';
import { committedChange } from './after-commit.fixtures.js';
import { countSends } from './count-sends.js';

const guard = () =>
  new SendGuard(resolveGuardOptions({ prices: { currency: 'NGN', prices: [{ channel: 'sms', price: 4.5 }] } })!, {
    store: memorySendGuardStore(),
    secrets: new SecretBox('count-sends-test-secret-0123456789abcdef'),
    logger: silentLogger,
  });
const sent = { type: 'sent' } as FlowEvent;

describe('countSends', () => {
  it("prices each `sent` event of a phone flow on its sender, channel and number's country", () => {
    const counted = guard();
    const change = committedChange();
    const record = {
      ...change.record,
      kind: 'phone' as const,
      context: { ...change.record.context, channel: 'sms', sentBy: 'termii' },
    };
    countSends(counted)!({ ...change, record, events: [sent] });
    countSends(counted)!({ ...change, record, events: [{ type: 'verified' } as FlowEvent] });
    expect(counted.costs()).toMatchObject({
      sends: 1,
      total: 4.5,
      lines: [{ provider: 'termii', channel: 'sms', country: 'NG' }],
    });
  });

  it('counts nothing for other kinds of flow, and does nothing without a guard', () => {
    const counted = guard();
    countSends(counted)!(committedChange({ events: [sent] }));
    expect(counted.costs()).toMatchObject({ sends: 0 });
    // Without a guard there is no step: the list leaves it out.
    expect(countSends(undefined)).toBeUndefined();
  });

  it('is no step with a guard that has neither a tripwire nor a rate card, and one with either', () => {
    const deps = {
      store: memorySendGuardStore(),
      secrets: new SecretBox('count-sends-test-secret-0123456789abcdef'),
      logger: silentLogger,
    };
    const limitsOnly = new SendGuard(resolveGuardOptions({})!, deps);
    expect(countSends(limitsOnly)).toBeUndefined();
    expect(countSends(guard())).toBeTypeOf('function');
    const tripwire = new SendGuard(resolveGuardOptions({ tripwire: {} })!, deps);
    expect(countSends(tripwire)).toBeTypeOf('function');
  });
});
