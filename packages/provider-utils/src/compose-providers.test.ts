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

describe('composeProviders with a list for phone (each channel from the first provider that has it)', () => {
  const context = () => ({ signal: new AbortController().signal, idempotencyKey: 'k', logger: silentLogger });

  it('refuses an empty list, a member without phone verification and two members of one name, naming the entry', () => {
    const cases: Array<[string, unknown]> = [
      ['phone', []],
      ['phone[1]', [createTestProviderV1({ name: 'a' }), { specificationVersion: 'v1', name: 'b' }]],
      ['phone[1]', [createTestProviderV1({ name: 'a' }), createTestProviderV1({ name: 'a' })]],
    ];
    for (const [field, phone] of cases) {
      expect(() => composeProviders({ phone } as never)).toThrow(
        expect.objectContaining({ issues: [expect.objectContaining({ field })] }),
      );
    }
  });

  it('declares the union of channels; a check whose requestId names no member is refused, and reaches none', async () => {
    const chat = createTestProviderV1({ name: 'chat', channels: ['whatsapp'] });
    const texts = createTestProviderV1({ name: 'texts', channels: ['sms', 'whatsapp'] });
    const phone = composeProviders({ phone: [chat, texts] }).phone!;
    expect(phone.channels).toEqual(['whatsapp', 'sms']);
    expect(await phone.send({ phoneNumber: '+2348031230010', channel: 'whatsapp' }, context())).toEqual({
      requestId: 'chat~req-1',
      sentBy: 'chat',
    });
    await expect(phone.check({ requestId: 'other~req-1', code: '123456' }, context())).rejects.toThrow(
      /names no provider/,
    );
    await expect(phone.check({ requestId: 'req-1', code: '123456' }, context())).rejects.toThrow(/names no provider/);
    expect([chat.callsOf('phone.check'), texts.callsOf('phone.check')]).toEqual([[], []]);
  });
});

describe('a message id a member returns reaches the flow as it is (its delivery receipts name it)', () => {
  it('composeProviders and withFailover keep the messageId, and prefix only the requestId', async () => {
    const { withFailover } = await import('./with-failover.js');
    const context = { signal: new AbortController().signal, idempotencyKey: 'k', logger: silentLogger };
    const chat = createTestProviderV1({ name: 'chat', channels: ['whatsapp'] });
    const texts = createTestProviderV1({ name: 'texts', channels: ['sms'] });
    chat.script('phone.send', { requestId: 'twa1.x', messageId: 'SM-1' }, { requestId: 'twa1.y', messageId: 'SM-2' });
    const input = { phoneNumber: '+2348031230010', channel: 'whatsapp' } as const;
    expect(await composeProviders({ phone: [chat, texts] }).phone!.send(input, context)).toEqual({
      requestId: 'chat~twa1.x',
      messageId: 'SM-1',
      sentBy: 'chat',
    });
    expect(await withFailover([chat, texts]).phone!.send(input, context)).toEqual({
      requestId: 'chat~twa1.y',
      messageId: 'SM-2',
      sentBy: 'chat',
    });
  });
});

describe('composeProviders with dial-in', () => {
  // A dial-in capability of its own: the test doubles have none, and only its identity matters here.
  const dialIn = {
    serviceCode: '*384*1234#',
    parseSession: () => ({ sessionId: 'ATUid_1', phoneNumber: '+2348031230010', text: '' }),
    answer: (kind: 'CON' | 'END', screen: string) => ({ body: `${kind} ${screen}`, contentType: 'text/plain' }),
  };
  const gateway = { ...createTestProviderV1({ name: 'gateway' }), dialIn };

  it('takes dialIn from the provider given for it, service code and all', () => {
    const composed = composeProviders({ phone: createTestProviderV1({ name: 'phones' }), dialIn: gateway });
    expect(composed.dialIn).toBe(dialIn);
    expect(composed.dialIn?.serviceCode).toBe('*384*1234#');
    expect(composeProviders({ phone: gateway }).dialIn).toBeUndefined();
  });
  it('refuses a provider without dial-in given for it, naming the key', () => {
    expect(() => composeProviders({ dialIn: createTestProviderV1({ name: 'phones' }) })).toThrow(
      expect.objectContaining({
        issues: [expect.objectContaining({ field: 'dialIn', message: expect.stringContaining('no dialIn') })],
      }),
    );
  });
});
