import { describe, expect, it } from 'vitest';
import { InvalidInputError, type ProviderEventV1 } from '@verikit/provider';
import { StoreError } from '../errors/store-error.js';
import { setup } from '../engine/engine.fixtures.js';
import type { FlowRecord } from '../store/flow-store.js';
import { KeyvFlowStore } from '../store/keyv-flow-store.js';
import { inboundEventAttemptKey, inboundEventMarkerKey } from '../keys/store-keys.js';

const phone = '+2348031234567';
const success: ProviderEventV1 = { type: 'ussd-verification', phoneNumber: phone, status: 'success' };

/** A real store whose next flow writes fail: an outage in the middle of applying an event. */
class FailingWrites extends KeyvFlowStore {
  failures = 0;
  override compareAndSetFlow(record: FlowRecord, expectedVersion: number, ttlMs: number): Promise<boolean> {
    if (this.failures > 0) {
      this.failures -= 1;
      return Promise.reject(new StoreError('the flow store failed to write a flow'));
    }
    return super.compareAndSetFlow(record, expectedVersion, ttlMs);
  }
}

describe('verikit.receive: one entry for what a provider tells us, applied once per delivery id', () => {
  it('applies a delivery once; its redelivery is a duplicate and changes nothing', async () => {
    const { verikit, store, logs } = setup();
    const flow = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    const first = await verikit.receive({ id: 'msg_1', event: success });
    expect(first).toMatchObject({ outcome: 'applied', flowId: flow.id, view: { status: 'verified' } });
    const version = (await store.getFlow(flow.id))!.version;
    expect(await verikit.receive({ id: 'msg_1', event: success })).toEqual({ outcome: 'duplicate' });
    expect((await store.getFlow(flow.id))!.version).toBe(version);
    // The engine keeps its marker under its own key name, and logs the id with the outcome.
    expect(await store.getRoute(inboundEventMarkerKey('msg_1'))).toBe('done');
    expect(logs.map((line) => line.message)).toEqual(
      expect.arrayContaining(['verikit.inbound.applied', 'verikit.inbound.duplicate']),
    );
  });

  it('answers in-progress while another delivery holds the id, with the lease as the time to come back', async () => {
    const { verikit, store } = setup();
    await verikit.start({ kind: 'ussd', phoneNumber: phone });
    expect(await store.claim(inboundEventAttemptKey('msg_held', 0), 60_000)).toBe(true);
    expect(await verikit.receive({ id: 'msg_held', event: success }, { processingTimeoutMs: 1000 })).toEqual({
      outcome: 'in-progress',
      retryAfterMs: 1500,
    });
  });

  it('gives the id back when applying fails, so the next delivery applies it afresh', async () => {
    const store = new FailingWrites();
    const { verikit } = setup({ store });
    const flow = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    store.failures = 1;
    await expect(verikit.receive({ id: 'msg_outage', event: success })).rejects.toThrow(StoreError);
    expect(await store.getRoute(inboundEventMarkerKey('msg_outage'))).toBe('retry:0');
    expect(await verikit.receive({ id: 'msg_outage', event: success })).toMatchObject({
      outcome: 'applied',
      flowId: flow.id,
    });
  });

  it('refuses a malformed delivery before claiming anything, naming the field', async () => {
    const { verikit, store } = setup();
    for (const [delivery, field] of [
      [{ id: '', event: success }, 'id'],
      [{ id: 'has space', event: success }, 'id'],
      [{ id: 'x'.repeat(257), event: success }, 'id'],
      [{ event: success }, 'id'],
      [{ id: 'msg_bad', event: { ...success, phoneNumber: '08031234567' } }, 'event.phoneNumber'],
      [{ id: 'msg_bad', event: success, extra: 1 }, 'input'],
    ] as const) {
      const refusal = verikit.receive(delivery as never);
      await expect(refusal).rejects.toThrow(InvalidInputError);
      await expect(refusal).rejects.toMatchObject({ field });
    }
    await expect(verikit.receive({ id: 'msg_ok', event: success }, { processingTimeoutMs: 5 })).rejects.toMatchObject({
      field: 'options.processingTimeoutMs',
    });
    expect(await store.getRoute(inboundEventMarkerKey('msg_bad'))).toBeUndefined();
    expect(await store.claim(inboundEventAttemptKey('msg_bad', 0), 1000)).toBe(true);
  });
});
