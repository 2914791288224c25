import { describe, expect, it } from 'vitest';
import { CapabilityError, InvalidInputError, ProviderUnavailableError } from '@verikit/provider';
import { composeProviders } from '@verikit/provider-utils';
import { createTestProviderV1 } from '@verikit/testing';
import { EventNotAllowedError } from '../errors/index.js';
import { createVerikit } from './create-verikit.js';
import { setup, testSecret } from './engine.fixtures.js';
import { ManualClock } from './manual-clock.fixtures.js';

const phone = '+2348012345678';
const allChannels = ['whatsapp', 'sms', 'voice'] as const;

describe('a phone flow takes a plan of channels', () => {
  it('sends on the first channel; the view shows the plan and the channels left; locale reaches the provider', async () => {
    const { verikit, provider } = setup({ provider: createTestProviderV1({ channels: allChannels }) });
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: [...allChannels], locale: 'fr' });
    expect(view).toMatchObject({ channel: 'whatsapp', channels: allChannels, channelsLeft: ['sms', 'voice'] });
    expect(provider.callsOf('phone.send')[0]!.input).toEqual({ phoneNumber: phone, channel: 'whatsapp', locale: 'fr' });
  });

  it('a single channel stays accepted, and is a plan of one', async () => {
    const { verikit } = setup();
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone, channel: 'voice' });
    expect(view).toMatchObject({ channel: 'voice', channels: ['voice'], channelsLeft: [] });
  });

  it('refuses channel and channels together, a channel named twice, and an empty plan, naming the field', async () => {
    const { verikit, provider } = setup();
    await expect(
      verikit.start({ kind: 'phone', phoneNumber: phone, channel: 'sms', channels: ['sms'] }),
    ).rejects.toThrow(InvalidInputError);
    await expect(verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['sms', 'sms'] })).rejects.toThrow(
      /channels.*twice/,
    );
    await expect(verikit.start({ kind: 'phone', phoneNumber: phone, channels: [] })).rejects.toThrow(/channels/);
    await expect(verikit.start({ kind: 'phone', phoneNumber: phone, locale: 'not a locale' })).rejects.toThrow(
      /locale/,
    );
    expect(provider.callsOf('phone.send')).toEqual([]);
  });

  it('checks every channel of the plan at start: a channel the provider lacks fails before any send', async () => {
    const { verikit, provider } = setup({ provider: createTestProviderV1({ channels: ['sms', 'voice'] }) });
    await expect(verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['sms', 'whatsapp'] })).rejects.toThrow(
      CapabilityError,
    );
    expect(provider.callsOf('phone.send')).toEqual([]);
  });
});

describe('the user may switch channel on resend, within the plan', () => {
  it('resend { channel: voice } sends by voice, names the send it repeats, and counts one send', async () => {
    const { verikit, provider, clock } = setup({ provider: createTestProviderV1({ channels: allChannels }) });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['sms', 'whatsapp', 'voice'] });
    clock.advance(30_000);
    const view = await verikit.send(id, { type: 'resend', channel: 'voice' });
    expect(provider.callsOf('phone.send')[1]!.input).toEqual({
      phoneNumber: phone,
      channel: 'voice',
      resendOf: 'req-1',
    });
    expect(view).toMatchObject({ status: 'awaiting-code', channel: 'voice', channelsLeft: ['whatsapp'], sendsLeft: 3 });
  });

  it('refuses a channel outside the plan, and sends nothing', async () => {
    const { verikit, provider, clock } = setup({ provider: createTestProviderV1({ channels: allChannels }) });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['sms', 'voice'] });
    clock.advance(30_000);
    await expect(verikit.send(id, { type: 'resend', channel: 'whatsapp' })).rejects.toThrow(EventNotAllowedError);
    expect(provider.callsOf('phone.send')).toHaveLength(1);
  });

  it('a switch waits for the cooldown like any resend', async () => {
    const { verikit } = setup({ provider: createTestProviderV1({ channels: allChannels }) });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['sms', 'voice'] });
    await expect(verikit.send(id, { type: 'resend', channel: 'voice' })).rejects.toThrow(/resend is available in/);
  });
});

describe('the engine falls back to the next channel when a send provably never left', () => {
  it('WhatsApp refused before sending: SMS goes at once, counted as a second send', async () => {
    const { verikit, provider } = setup({ provider: createTestProviderV1({ channels: allChannels }) });
    provider.failNext('phone.send', new ProviderUnavailableError('connect ECONNREFUSED', { requestSent: false }));
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    expect(provider.callsOf('phone.send').map((call) => call.input.channel)).toEqual(['whatsapp', 'sms']);
    expect(view).toMatchObject({ status: 'awaiting-code', channel: 'sms', channelsLeft: [], sendsLeft: 3 });
  });

  it('no fallback when the send may have left, nor when no channel is left', async () => {
    const { verikit, provider } = setup({ provider: createTestProviderV1({ channels: allChannels }) });
    provider.failNext('phone.send', new ProviderUnavailableError('socket hang up', { requestSent: true }));
    const maybeSent = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    expect(maybeSent).toMatchObject({ status: 'send-failed', channel: 'whatsapp', channelsLeft: ['sms'] });

    provider.failNext('phone.send', new ProviderUnavailableError('connect ECONNREFUSED', { requestSent: false }));
    const single = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679', channel: 'sms' });
    expect(single.status).toBe('send-failed');
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('the hourly limit holds for fallbacks: a refused fallback leaves the flow send-failed, nothing lost', async () => {
    const { verikit, provider } = setup({
      provider: createTestProviderV1({ channels: allChannels }),
      policies: { maxSendsPerHour: 1 },
    });
    provider.failNext('phone.send', new ProviderUnavailableError('connect ECONNREFUSED', { requestSent: false }));
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    expect(view).toMatchObject({ status: 'send-failed', channel: 'whatsapp', error: { code: 'provider_unavailable' } });
    expect(provider.callsOf('phone.send')).toHaveLength(1);
  });
});

describe('a plan across composeProviders: WhatsApp from one provider, SMS and voice from another', () => {
  function composed() {
    const whatsapp = createTestProviderV1({ name: 'chat', channels: ['whatsapp'] });
    const phones = createTestProviderV1({ name: 'phones', channels: ['sms', 'voice'] });
    return { whatsapp, phones, provider: composeProviders({ phone: [whatsapp, phones] }) };
  }

  it('the capability check at start covers the union; a channel none has fails before any send', async () => {
    const { provider, whatsapp, phones } = composed();
    const verikit = createVerikit({ provider, secret: testSecret, clock: new ManualClock() });
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: [...allChannels] });
    expect(view.channel).toBe('whatsapp');
    expect([whatsapp.callsOf('phone.send').length, phones.callsOf('phone.send').length]).toEqual([1, 0]);
    const onlySms = composeProviders({ phone: [createTestProviderV1({ name: 'texts', channels: ['sms'] })] });
    await expect(
      createVerikit({ provider: onlySms, secret: testSecret }).start({
        kind: 'phone',
        phoneNumber: phone,
        channels: ['sms', 'whatsapp'],
      }),
    ).rejects.toThrow(CapabilityError);
  });

  it('a switch to SMS goes to the member that has it, and the check goes to the member that sent the code', async () => {
    const { provider, whatsapp, phones } = composed();
    const clock = new ManualClock();
    const verikit = createVerikit({ provider, secret: testSecret, clock });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    clock.advance(30_000);
    const resent = await verikit.send(id, { type: 'resend', channel: 'sms' });
    expect(resent).toMatchObject({ channel: 'sms', channelsLeft: [] });
    // The SMS member never sent the first code: it gets no resendOf of another provider's requestId.
    expect(phones.callsOf('phone.send')[0]!.input).toEqual({ phoneNumber: phone, channel: 'sms' });
    phones.script('phone.check', { valid: true });
    expect((await verikit.send(id, { type: 'submit-code', code: '123456' })).status).toBe('verified');
    expect(phones.callsOf('phone.check').map((call) => call.input.requestId)).toEqual(['req-1']);
    expect(whatsapp.callsOf('phone.check')).toEqual([]);
  });

  it('a failed WhatsApp send that never left falls back to the SMS member', async () => {
    const { provider, whatsapp, phones } = composed();
    whatsapp.failNext('phone.send', new ProviderUnavailableError('connect ECONNREFUSED', { requestSent: false }));
    const verikit = createVerikit({ provider, secret: testSecret, clock: new ManualClock() });
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    expect(view).toMatchObject({ status: 'awaiting-code', channel: 'sms' });
    expect(phones.callsOf('phone.send')).toHaveLength(1);
  });
});
