import { describe, expect, it } from 'vitest';
import { InvalidInputError, type ProviderEventV1 } from '@verikit/provider';
import { setup } from '../engine/engine.fixtures.js';
import { deliveryRouteKey } from '../keys/store-keys.js';

const phone = '+2348031234567';

function receipt(messageId: string, status: 'delivered' | 'undelivered', extra: Partial<ProviderEventV1> = {}) {
  return { type: 'delivery', messageId, status, ...extra } as ProviderEventV1;
}

describe('delivery receipts: applied once to the flow that sent the message, shown in its view', () => {
  it('routes a receipt by the requestId the send returned, and shows it without changing the state', async () => {
    const { verikit, clock, keyv } = setup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(flow.delivery).toBeUndefined();
    clock.advance(2_000);
    const result = await verikit.receive({
      id: 'dlr_1',
      event: receipt('req-1', 'undelivered', { reason: 'carrier rejected +2348031234567' }),
    });
    expect(result).toMatchObject({ outcome: 'applied', flowId: flow.id });
    expect(result.view).toMatchObject({
      status: 'awaiting-code',
      delivery: { status: 'undelivered', reason: 'carrier rejected +••••••••••••', at: clock.now() },
    });
    // The route's key name is a keyed hash of the provider's id, never the id itself.
    const keys = [...(keyv.store as Map<string, unknown>).keys()];
    expect(keys.filter((key) => key.includes(deliveryRouteKey('')))).toHaveLength(1);
    expect(keys.join(' ')).not.toContain('req-1');
    // Claimed once: the same delivery id is a duplicate.
    expect(await verikit.receive({ id: 'dlr_1', event: receipt('req-1', 'delivered') })).toEqual({
      outcome: 'duplicate',
    });
  });

  it('keeps the newest receipt, keeps a provider error code as it is, and clears it with the next send', async () => {
    const { verikit, clock } = setup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const at = clock.now();
    await verikit.receive({ id: 'dlr_a', event: receipt('req-1', 'undelivered', { reason: 'twilio:30003', at }) });
    // An older receipt arriving late changes nothing.
    expect(await verikit.receive({ id: 'dlr_b', event: receipt('req-1', 'delivered', { at: at - 1 }) })).toMatchObject({
      outcome: 'no-active-flow',
      flowId: flow.id,
    });
    expect((await verikit.get(flow.id)).delivery).toEqual({ status: 'undelivered', reason: 'twilio:30003', at });
    clock.advance(60_000);
    const resent = await verikit.send(flow.id, { type: 'resend' });
    expect(resent.delivery).toBeUndefined();
    // The second send routes its own receipts.
    expect(await verikit.receive({ id: 'dlr_c', event: receipt('req-2', 'delivered') })).toMatchObject({
      outcome: 'applied',
      view: { delivery: { status: 'delivered', at: clock.now() } },
    });
  });

  it('answers no-active-flow for a message no flow sent, and refuses a malformed receipt naming the field', async () => {
    const { verikit } = setup();
    expect(await verikit.receive({ id: 'dlr_x', event: receipt('SM-unknown', 'delivered') })).toEqual({
      outcome: 'no-active-flow',
    });
    for (const [event, field] of [
      [{ type: 'delivery', messageId: 'has space', status: 'delivered' }, 'event.messageId'],
      [{ type: 'delivery', messageId: 'm1', status: 'read' }, 'event.status'],
      [{ type: 'delivery', messageId: 'm1', status: 'delivered', reason: 'x'.repeat(201) }, 'event.reason'],
      [{ type: 'delivery', messageId: 'm1', status: 'delivered', phoneNumber: phone }, 'event'],
    ] as const) {
      const refusal = verikit.receive({ id: 'dlr_bad', event: event as never });
      await expect(refusal).rejects.toThrow(InvalidInputError);
      await expect(refusal).rejects.toMatchObject({ field });
    }
  });
});
