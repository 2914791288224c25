import { describe, expect, it, vi } from 'vitest';
import type { ProviderEventV1 } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { setup } from '../engine/engine.fixtures.js';
import type { Verikit } from '../engine/verikit.js';

const phone = '+2348031234567';
const channels = ['whatsapp', 'sms', 'voice'] as const;

/** The flow once its fallback's send, which the flow's timer makes after `receive` answered, has settled. */
async function settled(verikit: Verikit, flowId: string) {
  let view = await verikit.get(flowId);
  await vi.waitFor(async () => {
    view = await verikit.get(flowId);
    expect(view.status).not.toBe('sending');
    expect(view.next).toBeUndefined();
  });
  return view;
}

function undelivered(messageId: string, reason = 'twilio:63016'): ProviderEventV1 {
  return { type: 'delivery', messageId, status: 'undelivered', reason };
}

describe('a failed delivery receipt moves a phone flow to the next channel of its plan', () => {
  it('WhatsApp undelivered: SMS goes at once, counted as a send; the receipt of the old send changes nothing', async () => {
    const { verikit, provider, clock } = setup({ provider: createTestProviderV1({ channels }) });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    expect(flow).toMatchObject({ channel: 'whatsapp', sendsLeft: 4 });
    const told: string[] = [];
    verikit.on('*', (event) => void told.push(event.type));
    clock.advance(1_000);
    const result = await verikit.receive({ id: 'dlr_1', event: undelivered('req-1') });
    // Answered once the fallback is due in the flow's record; the flow's timer sends it after (decision 1561).
    expect(result).toMatchObject({ outcome: 'applied', flowId: flow.id });
    expect(result.view).toMatchObject({
      status: 'awaiting-code',
      channel: 'whatsapp',
      next: { channel: 'sms', at: clock.now() },
      error: { code: 'delivery_failed' },
      sendsLeft: 4,
    });
    const view = await settled(verikit, flow.id);
    expect(provider.callsOf('phone.send').map((call) => call.input)).toEqual([
      { phoneNumber: phone, channel: 'whatsapp' },
      { phoneNumber: phone, channel: 'sms', resendOf: 'req-1' },
    ]);
    expect(view).toMatchObject({ status: 'awaiting-code', channel: 'sms', channelsLeft: [], sendsLeft: 3 });
    // The receipt is committed (and told) before the fallback it causes.
    expect(told).toEqual(['undelivered', 'sent']);
    // The new send cleared the receipt; a second failure of the old send (a redelivery with another id) is ignored.
    expect(view.delivery).toBeUndefined();
    clock.advance(1_000);
    await verikit.receive({ id: 'dlr_2', event: undelivered('req-1') });
    expect(provider.callsOf('phone.send')).toHaveLength(2);
    expect((await verikit.get(flow.id)).channel).toBe('sms');
  });

  it('the pass a receipt starts is held by the engine: runDueTimers joins it, close waits for it and stops the polls', async () => {
    const { verikit, provider, clock } = setup({ provider: createTestProviderV1({ channels }) });
    const first = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    await verikit.receive({ id: 'dlr_join', event: undelivered('req-1') });
    // No waiting on a condition: the pass the receipt started is the one this call returns.
    await verikit.runDueTimers();
    expect(provider.callsOf('phone.send')).toHaveLength(2);
    expect((await verikit.get(first.id)).channel).toBe('sms');

    const second = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234568', channels: ['whatsapp', 'sms'] });
    await verikit.receive({ id: 'dlr_close', event: undelivered('req-3') });
    await verikit.close();
    // The fallback the receipt made due was sent before close resolved: the store may be closed now.
    expect(provider.callsOf('phone.send')).toHaveLength(4);
    expect((await verikit.get(second.id)).channel).toBe('sms');
    // After close nothing runs by itself, and a pass asked for does nothing: the plan's next send stays due.
    const third = await verikit.start({
      kind: 'phone',
      phoneNumber: '+2348031234569',
      channels: ['whatsapp', 'sms'],
      escalateAfterMs: 30_000,
    });
    clock.advance(60_000);
    expect(await verikit.runDueTimers()).toBe(0);
    expect((await verikit.get(third.id)).next).toMatchObject({ channel: 'sms' });
    expect(provider.callsOf('phone.send')).toHaveLength(5);
    await verikit.close();
  });

  it('a receipt naming the messageId of the newest send falls back too', async () => {
    const { verikit, provider } = setup({ provider: createTestProviderV1({ channels }) });
    provider.script('phone.send', { requestId: 'wa1.token', messageId: 'SM-message-1' });
    await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'voice'] });
    const result = await verikit.receive({ id: 'dlr_m', event: undelivered('SM-message-1') });
    expect(await settled(verikit, result.flowId!)).toMatchObject({ status: 'awaiting-code', channel: 'voice' });
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('a delivered receipt, or a failure with no channel left, sends nothing; the latter shows delivery_failed', async () => {
    const { verikit, provider } = setup({ provider: createTestProviderV1({ channels }) });
    const first = await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    await verikit.receive({ id: 'dlr_ok', event: { type: 'delivery', messageId: 'req-1', status: 'delivered' } });
    expect((await verikit.get(first.id)).channel).toBe('whatsapp');

    const single = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234568', channel: 'sms' });
    const result = await verikit.receive({ id: 'dlr_last', event: undelivered('req-2', 'Message Failed') });
    expect(result.view).toMatchObject({
      id: single.id,
      status: 'awaiting-code',
      error: { code: 'delivery_failed' },
      delivery: { status: 'undelivered', reason: 'Message Failed' },
    });
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('the hourly limit holds: a refused fallback leaves the flow awaiting its code with delivery_failed', async () => {
    const { verikit, provider } = setup({
      provider: createTestProviderV1({ channels }),
      policies: { maxSendsPerHour: 1 },
    });
    await verikit.start({ kind: 'phone', phoneNumber: phone, channels: ['whatsapp', 'sms'] });
    const result = await verikit.receive({ id: 'dlr_limit', event: undelivered('req-1') });
    expect(result.view).toMatchObject({
      status: 'awaiting-code',
      channel: 'whatsapp',
      channelsLeft: ['sms'],
      error: { code: 'delivery_failed' },
    });
    // The flow's timer tried the fallback and the limit refused it: the plan sends nothing more by itself.
    await verikit.runDueTimers();
    expect((await verikit.get(result.flowId!)).next).toBeUndefined();
    expect(provider.callsOf('phone.send')).toHaveLength(1);
  });
});
