import { describe, expect, it } from 'vitest';
import { isParsedV1, type ProviderV1 } from '@verikit/provider';
import { withFailover } from '@verikit/provider-utils';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import { captureLogger, testSecret } from './engine.fixtures.js';
import { createVerikit } from './create-verikit.js';
import { ManualClock } from './manual-clock.fixtures.js';

/** The provider with every call's operation recorded, and whether its input came marked as parsed. */
function spying(provider: ProviderV1, seen: Array<[string, boolean]>): ProviderV1 {
  const spy =
    <I, R>(operation: string, call: (input: I, context: never) => R) =>
    (input: I, context: never) => {
      seen.push([operation, isParsedV1(input)]);
      return call(input, context);
    };
  return {
    ...provider,
    phone: {
      ...provider.phone!,
      send: spy('phone.send', provider.phone!.send),
      check: spy('phone.check', provider.phone!.check),
    },
    ussd: { initiate: spy('ussd.initiate', provider.ussd!.initiate) },
    identity: { ...provider.identity!, sendOtp: spy('identity.sendOtp', provider.identity!.sendOtp) },
    sms: { send: spy('sms.send', provider.sms!.send) },
    whatsapp: { send: spy('whatsapp.send', provider.whatsapp!.send) },
  };
}

/**
 * The engine parses each input at its edge and hands the provider inputs marked as parsed, so a provider does not
 * parse them again (decision 1520). Every call of every capability, straight and through a wrapper.
 */
async function driveEveryCapability(provider: ProviderV1, double: TestProviderV1) {
  const clock = new ManualClock();
  const verikit = createVerikit({ provider, secret: testSecret, clock, logger: captureLogger().logger });
  const phoneNumber = '+2348012345678';
  const phone = await verikit.start({ kind: 'phone', phoneNumber });
  clock.advance(60_000);
  await verikit.send(phone.id, { type: 'resend' });
  await verikit.send(phone.id, { type: 'submit-code', code: double.lastCode(phoneNumber)! });
  await verikit.start({ kind: 'ussd', phoneNumber: '+2348012345679' });
  await verikit.start({ kind: 'identity', idType: 'bvn', number: '22212345678' });
  await verikit.sendSms({ from: 'Acme', to: phoneNumber, message: 'Welcome' });
  await verikit.sendWhatsApp({ phoneNumber, message: 'Welcome' });
}

const everyCallMarked = [
  ['phone.send', true],
  ['phone.send', true],
  ['phone.check', true],
  ['ussd.initiate', true],
  ['identity.sendOtp', true],
  ['sms.send', true],
  ['whatsapp.send', true],
];

describe('the inputs the engine hands a provider', () => {
  it('are marked as parsed, for every capability', async () => {
    const double = createTestProviderV1();
    const seen: Array<[string, boolean]> = [];
    await driveEveryCapability(spying(double, seen), double);
    expect(seen).toEqual(everyCallMarked);
  });

  it('stay marked through withFailover, which derives new phone inputs (resendOf, the member’s requestId)', async () => {
    const double = createTestProviderV1();
    const seen: Array<[string, boolean]> = [];
    const provider = withFailover([
      { ...spying(double, seen), name: 'first' },
      createTestProviderV1({ name: 'second' }),
    ]);
    await driveEveryCapability(provider, double);
    expect(seen).toEqual(everyCallMarked);
  });
});
