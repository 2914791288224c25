import { describe, expect, it } from 'vitest';
import { InvalidInputError, ProviderRejectedError } from '@verikit/provider';
import { setup } from './engine.fixtures.js';
import type { FlowEvent } from '../flows/view.js';

const phone = '+2348031234567';

function recorder(verikit: ReturnType<typeof setup>['verikit']): FlowEvent[] {
  const events: FlowEvent[] = [];
  verikit.on('*', (event) => {
    events.push(event);
  });
  return events;
}

describe('verikit.on: lifecycle events of every flow, once, after the commit', () => {
  it('tells started, sent, delivered and verified of a phone flow, without the number or the code', async () => {
    const { verikit, provider } = setup();
    const events = recorder(verikit);
    const verifiedOnly: string[] = [];
    verikit.on('verified', (event) => {
      verifiedOnly.push(event.flowId);
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: phone });
    await verikit.receive({ id: 'dlr_1', event: { type: 'delivery', messageId: 'req-1', status: 'delivered' } });
    const code = provider.lastCode(phone)!;
    await verikit.send(flow.id, { type: 'submit-code', code: '000000' === code ? '111111' : '000000' });
    await verikit.send(flow.id, { type: 'submit-code', code });
    expect(events.map((event) => event.type)).toEqual(['started', 'sent', 'delivered', 'verified']);
    expect(events.every((event) => event.flowId === flow.id && event.kind === 'phone')).toBe(true);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(verifiedOnly).toEqual([flow.id]);
    const serialized = JSON.stringify(events);
    expect(serialized).not.toContain(phone.slice(4));
    expect(serialized).not.toContain(code);
  });

  it('tells failed with the error code, locked, and expired once committed; a failing listener is logged', async () => {
    const { verikit, provider, clock, logs } = setup();
    const events = recorder(verikit);
    verikit.on('started', () => {
      throw new Error('listener bug');
    });
    provider.failNext('phone.send', new ProviderRejectedError('refused'));
    const failed = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(events.map((event) => event.type)).toEqual(['started', 'failed']);
    expect(events[1]).toMatchObject({ status: 'send-failed', errorCode: 'provider_rejected' });
    expect(logs.map((line) => line.message)).toContain('verikit.event.listener-failed');

    events.length = 0;
    const locked = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234568' });
    for (let attempt = 0; attempt < 5; attempt += 1)
      await verikit.send(locked.id, { type: 'submit-code', code: '0000' });
    expect(events.map((event) => event.type)).toEqual(['started', 'sent', 'locked']);

    const waiting = await verikit.start({ kind: 'phone', phoneNumber: '+2348031234569' });
    events.length = 0;
    clock.advance(11 * 60_000);
    // Time is data: the expiry is committed by the next event on the flow, even one it refuses, and told then.
    await expect(verikit.send(waiting.id, { type: 'submit-code', code: '1234' })).rejects.toThrow();
    expect(events.map((event) => [event.type, event.flowId])).toEqual([['expired', waiting.id]]);
    expect(failed.status).toBe('send-failed');
  });

  it('refuses an unknown event type or a listener that is not a function, naming it', () => {
    const { verikit } = setup();
    for (const [type, listener, field] of [
      ['delivered-ish', () => undefined, 'type'],
      ['sent', 'not a function', 'listener'],
    ] as const) {
      let error: unknown;
      try {
        verikit.on(type as never, listener as never);
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    }
  });
});
