import { describe, expect, it } from 'vitest';
import { silentLogger, type PhoneCapabilityV1, type PhoneDeliveredInputV1 } from '@verikit/provider';
import type { FlowEvent } from '../../flows/view.js';
import { committedChange } from './after-commit.fixtures.js';
import { tellDelivery } from './tell-delivery.js';

/** A phone capability that remembers what it was told of delivered codes. */
function phoneTold(fail = false) {
  const told: PhoneDeliveredInputV1[] = [];
  const phone: PhoneCapabilityV1 = {
    channels: ['sms'],
    send: async () => ({ requestId: 'r' }),
    check: async () => ({ valid: false }),
    delivered: async (input) => {
      told.push(input);
      if (fail) throw Object.assign(new Error('down'), { code: 'store_unavailable' });
    },
  };
  return { phone, told };
}

const phoneChange = (events: FlowEvent[], kind: 'phone' | 'ussd' = 'phone') => {
  const change = committedChange({ events });
  const context = { ...change.record.context, requestId: 'termii@sms:MTN@k2~m-1', sendCount: 2 };
  return { ...change, record: { ...change.record, kind, context } };
};

describe('tellDelivery', () => {
  it("tells the phone provider the flow's newest requestId and its sends when a receipt said delivered", () => {
    const { phone, told } = phoneTold();
    const step = tellDelivery(phone, silentLogger)!;
    step(phoneChange([{ type: 'sent' } as FlowEvent]));
    step(phoneChange([{ type: 'delivered' } as FlowEvent], 'ussd'));
    expect(told).toEqual([]);
    step(phoneChange([{ type: 'delivered' } as FlowEvent]));
    expect(told).toEqual([{ requestId: 'termii@sms:MTN@k2~m-1', sends: 2 }]);
  });

  it('logs a rejection instead of failing the commit, and is no step for a provider that is not told', async () => {
    const { phone } = phoneTold(true);
    const warned: unknown[] = [];
    const logger = { ...silentLogger, warn: (message: string, fields?: unknown) => warned.push([message, fields]) };
    expect(tellDelivery(phone, logger)!(phoneChange([{ type: 'delivered' } as FlowEvent]))).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(warned).toEqual([['verikit.phone.delivered-failed', { flowId: 'flow-1', error: 'store_unavailable' }]]);
    expect(tellDelivery({ ...phone, delivered: undefined }, silentLogger)).toBeUndefined();
    expect(tellDelivery(undefined, silentLogger)).toBeUndefined();
  });
});
