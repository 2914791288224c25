import { InvalidInputError, silentLogger } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { composeProviders } from './compose-providers.js';

describe('composeProviders', () => {
  it('takes each capability from the provider given for it, as it is', async () => {
    const phone = createTestProviderV1({ name: 'phones' });
    const messages = createTestProviderV1({ name: 'messages' });
    const composed = composeProviders({ phone, sms: messages });
    expect(composed.name).toBe('composed');
    expect(composed.phone).toBe(phone.phone);
    expect(composed.sms).toBe(messages.sms);
    expect([composed.ussd, composed.whatsapp, composed.identity, composed.webhooks]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    await composed.sms!.send(
      { from: 'Shop', to: '+2348031230010', message: 'hi' },
      { signal: new AbortController().signal, idempotencyKey: 'k', logger: silentLogger },
    );
    expect(messages.calls).toHaveLength(1);
    expect(Object.isFrozen(composed)).toBe(true);
  });
  it('refuses a provider that lacks the capability it is given for, unknown keys and bad names', () => {
    const noSms = { specificationVersion: 'v1' as const, name: 'empty' };
    const cases: Array<[string, unknown]> = [
      ['sms', { sms: noSms }],
      ['phone', { phone: 'twilio' }],
      ['input', { phnoe: createTestProviderV1() }],
      ['input', null],
      ['name', { name: 'A'.repeat(40) }],
    ];
    for (const [field, composition] of cases) {
      let error: unknown;
      try {
        composeProviders(composition as never);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    }
  });
});
