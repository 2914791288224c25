import { describe, expect, it } from 'vitest';
import { CapabilityError, type MessagingRequirementV1 } from '@verikit/provider';
import type { StartInput } from '../inputs/inputs.js';
import { setup } from './engine.fixtures.js';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';

const phone = '+2348012345678';
const identityNumber = '22212345678';

/** The double without some capabilities, or with some replaced (the calls and outbox stay the double's). */
function reshaped(
  double: TestProviderV1,
  change: Partial<Record<'ussd' | 'phone' | 'identity' | 'sms' | 'whatsapp', unknown>>,
): TestProviderV1 {
  const provider: Record<string, unknown> = { ...double };
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) delete provider[key];
    else provider[key] = value;
  }
  return provider as unknown as TestProviderV1;
}

/** What the call rejected with; its value when it resolved (then no `isInstance` check below holds). */
const failure = (promise: Promise<unknown>): Promise<unknown> => promise.catch((caught: unknown) => caught);

describe('start checks what the provider can do, before it stores or sends anything', () => {
  const cases: Array<{
    name: string;
    provider: () => TestProviderV1;
    input: StartInput;
    capability: string;
    field?: string;
  }> = [
    {
      name: 'no phone verification',
      provider: () => reshaped(createTestProviderV1(), { phone: undefined }),
      input: { kind: 'phone', phoneNumber: phone },
      capability: 'phone verification',
    },
    {
      name: 'no voice channel',
      provider: () => createTestProviderV1({ channels: ['sms'] }),
      input: { kind: 'phone', phoneNumber: phone, channel: 'voice' },
      capability: 'phone verification by voice',
      field: 'channel',
    },
    {
      name: 'no whatsapp channel',
      provider: () => createTestProviderV1(),
      input: { kind: 'phone', phoneNumber: phone, channel: 'whatsapp' },
      capability: 'phone verification by whatsapp',
      field: 'channel',
    },
    {
      name: 'no USSD',
      provider: () => reshaped(createTestProviderV1(), { ussd: undefined }),
      input: { kind: 'ussd', phoneNumber: phone },
      capability: 'ussd verification',
    },
    {
      name: 'no identity verification',
      provider: () => reshaped(createTestProviderV1(), { identity: undefined }),
      input: { kind: 'identity', idType: 'bvn', number: identityNumber },
      capability: 'bvn verification',
      field: 'idType',
    },
    {
      name: 'identity without NIN',
      provider: () => {
        const double = createTestProviderV1();
        return reshaped(double, { identity: { ...double.identity!, types: ['bvn'] } });
      },
      input: { kind: 'identity', idType: 'nin', number: identityNumber },
      capability: 'nin verification',
      field: 'idType',
    },
  ];

  it.each(cases)(
    '$name: a CapabilityError naming it; the store is unchanged and the provider saw no call',
    async ({ provider: make, input, capability, field }) => {
      const provider = make();
      const { verikit, raw, logs } = setup({ provider });
      const before = raw();
      const error = await failure(verikit.start(input));
      expect(CapabilityError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'capability_missing',
        capability,
        isRetryable: false,
        ...(field === undefined ? {} : { field }),
      });
      expect((error as Error).message).toBe(`provider test does not support ${capability}`);
      expect(JSON.stringify([error, (error as Error).message])).not.toMatch(/2348012345678|22212345678/);
      expect(raw()).toBe(before);
      expect(provider.calls).toHaveLength(0);
      expect(logs.filter((line) => line.message === 'verikit.flow.started')).toHaveLength(0);
    },
  );

  it('a refused start takes no unit of the hourly send limit', async () => {
    const provider = createTestProviderV1({ channels: ['sms'] });
    const { verikit } = setup({ provider, policies: { maxSendsPerHour: 1 } });
    await failure(verikit.start({ kind: 'phone', phoneNumber: phone, channel: 'voice' }));
    expect((await verikit.start({ kind: 'phone', phoneNumber: phone, channel: 'sms' })).status).toBe('awaiting-code');
  });
});

describe('a phone flow on whatsapp', () => {
  it('sends by whatsapp and verifies, end to end on the double', async () => {
    const { verikit, provider } = setup({
      provider: createTestProviderV1({ channels: ['sms', 'voice', 'whatsapp'], phoneCode: '246810' }),
    });
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone, channel: 'whatsapp' });
    expect(started).toMatchObject({ status: 'awaiting-code', channel: 'whatsapp' });
    expect(provider.callsOf('phone.send')[0]!.input).toEqual({ phoneNumber: phone, channel: 'whatsapp' });
    expect(provider.outbox).toEqual([
      { channel: 'whatsapp', to: phone, code: '246810', text: 'Your verification code is 246810' },
    ]);
    expect((await verikit.send(started.id, { type: 'submit-code', code: '246810' })).status).toBe('verified');
  });
});

describe('messages check a required sender before any request', () => {
  const requiring = (requires: readonly MessagingRequirementV1[]) => {
    const double = createTestProviderV1({ defaultSender: 'Ignored' });
    return reshaped(double, { sms: { ...double.sms!, requires }, whatsapp: { ...double.whatsapp!, requires } });
  };

  it('an SMS with no sender, no defaultSender, to a provider that requires one: a CapabilityError on from, no call', async () => {
    const provider = requiring(['sender']);
    const { verikit } = setup({ provider });
    const error = await failure(verikit.sendSms({ to: phone, message: 'Your code is 918273' }));
    expect(CapabilityError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'capability_missing', field: 'from', isRetryable: false });
    expect(JSON.stringify([error, (error as Error).message])).not.toMatch(/918273|2348012345678/);
    expect(provider.calls).toHaveLength(0);
  });

  it('the call names a sender, or the engine has a defaultSender: sent', async () => {
    const provider = requiring(['sender']);
    await setup({ provider }).verikit.sendSms({ from: 'Shop', to: phone, message: 'hi' });
    await setup({ provider, defaultSender: 'Verikit' }).verikit.sendSms({ to: phone, message: 'hi' });
    expect(provider.callsOf('sms.send').map((call) => call.input.from)).toEqual(['Shop', 'Verikit']);
  });

  it('WhatsApp to a provider with no WhatsApp sender: a CapabilityError on from, no call; without the requirement it is sent', async () => {
    const provider = requiring(['sender']);
    const error = await failure(
      setup({ provider, defaultSender: 'Verikit' }).verikit.sendWhatsApp({ phoneNumber: phone, message: 'hi' }),
    );
    expect(CapabilityError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'capability_missing', field: 'from' });
    expect(provider.calls).toHaveLength(0);
    const plain = requiring([]);
    await setup({ provider: plain }).verikit.sendWhatsApp({ phoneNumber: phone, message: 'hi' });
    expect(plain.callsOf('whatsapp.send')).toHaveLength(1);
  });
});
