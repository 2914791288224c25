import { createTestProviderV1 } from '@verikit/testing';
import { ManualClock } from './manual-clock.fixtures.js';
import { describe, expect, it, vi } from 'vitest';
import { EventNotAllowedError, FlowNotFoundError, RecordSchemaError } from '../errors/index.js';
import type { FlowRecord } from '../store/flow-store.js';
import { KeyvFlowStore, createMemoryKeyv } from '../store/keyv-flow-store.js';
import { createVerikit } from './create-verikit.js';
import { setup, testSecret } from './engine.fixtures.js';

describe('persistence', () => {
  it('a new engine over the same Keyv continues a flow started by another', async () => {
    const keyv = createMemoryKeyv();
    const provider = createTestProviderV1();
    const clock = new ManualClock();
    const first = createVerikit({ provider, secret: testSecret, clock, store: new KeyvFlowStore(keyv) });
    const bvnFlow = await first.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    const phoneFlow = await first.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    await first.send(phoneFlow.id, { type: 'submit-code', code: '000000' });

    const second = createVerikit({ provider, secret: testSecret, clock, store: new KeyvFlowStore(keyv) });
    expect(await second.get(phoneFlow.id)).toMatchObject({ status: 'awaiting-code', attemptsLeft: 4 });
    expect((await second.send(phoneFlow.id, { type: 'submit-code', code: '123456' })).status).toBe('verified');
    // The second engine can also resend: it opens the sealed number with the shared secret.
    clock.advance(30_000);
    await second.send(bvnFlow.id, { type: 'resend' });
    const otp = provider.lastCode('+2348000000000')!;
    expect((await second.send(bvnFlow.id, { type: 'submit-code', code: otp })).status).toBe('verified');
  });

  it('records carry a schema version; a record of another version is refused with a clear error', async () => {
    const { verikit, keyv } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    const record = (await keyv.get(`flow:${id}`)) as Record<string, unknown>;
    expect(record).toMatchObject({ schemaVersion: 1, kind: 'phone', version: 2, value: 'awaiting-code' });
    await keyv.set(`flow:${id}`, { ...record, schemaVersion: 99 });
    await expect(verikit.get(id)).rejects.toSatisfy(
      (error) => RecordSchemaError.isInstance(error) && /schema version 99/.test(error.message),
    );
    await keyv.set(`flow:${id}`, { ...record, value: 'no-such-state' });
    await expect(verikit.get(id)).rejects.toSatisfy(RecordSchemaError.isInstance);
  });

  it('keeps records for the retention period after the flow can no longer change', async () => {
    const { verikit, clock } = setup({ clock: { now: () => Date.now() }, policies: { retentionMs: 0 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    expect((await verikit.cancel(id)).status).toBe('cancelled');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(verikit.get(id)).rejects.toThrow(/flow not found/);
    expect(clock).toBeDefined();
  });
  it('an event starts from the record this engine committed last: no store read per user action on a flow it used', async () => {
    class CountingStore extends KeyvFlowStore {
      reads = 0;
      override getFlow(id: string) {
        this.reads += 1;
        return super.getFlow(id);
      }
    }
    const store = new CountingStore(createMemoryKeyv());
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: testSecret,
      clock: new ManualClock(),
      store,
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    expect(store.reads).toBe(0);
    // submit-code starts from the record the send's answer committed; the check's answer from the one written
    // before it.
    const view = await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    expect(view).toMatchObject({ status: 'awaiting-code', attemptsLeft: 4, version: 4 });
    expect((await verikit.send(flow.id, { type: 'submit-code', code: '123456' })).status).toBe('verified');
    expect(store.reads).toBe(0);
    // An identity send takes the sealed number from the record committed with it: no read either.
    const identity = await verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    expect(identity.status).toBe('awaiting-code');
    expect(store.reads).toBe(0);
    // A read of the view is always the store's.
    expect((await verikit.get(flow.id)).status).toBe('verified');
    expect(store.reads).toBe(1);
  });

  it('an event on a flow another instance changed since is applied to the fresh record: the stale one costs a failed compare-and-set, then one read', async () => {
    class CountingStore extends KeyvFlowStore {
      reads = 0;
      refusedWrites = 0;
      override getFlow(id: string) {
        this.reads += 1;
        return super.getFlow(id);
      }
      override async compareAndSetFlow(record: FlowRecord, expectedVersion: number, ttlMs: number) {
        const written = await super.compareAndSetFlow(record, expectedVersion, ttlMs);
        if (!written) this.refusedWrites += 1;
        return written;
      }
    }
    const keyv = createMemoryKeyv();
    const provider = createTestProviderV1();
    const clock = new ManualClock();
    const storeA = new CountingStore(keyv);
    const a = createVerikit({ provider, secret: testSecret, clock, store: storeA });
    const b = createVerikit({ provider, secret: testSecret, clock, store: new KeyvFlowStore(keyv) });
    const flow = await a.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    expect((await a.send(flow.id, { type: 'submit-code', code: '000000' })).attemptsLeft).toBe(4);
    expect((await b.send(flow.id, { type: 'submit-code', code: '000000' })).attemptsLeft).toBe(3);
    // A's latest record says 4 attempts left; the store says 3. A's wrong code is the third one.
    const third = await a.send(flow.id, { type: 'submit-code', code: '000000' });
    expect(third).toMatchObject({ status: 'awaiting-code', attemptsLeft: 2, version: 8 });
    expect(storeA.refusedWrites).toBe(1);
    expect(storeA.reads).toBe(1);
    // An event the stale record accepts but the fresh one refuses is refused as the fresh record says.
    expect((await b.cancel(flow.id)).status).toBe('cancelled');
    await expect(a.send(flow.id, { type: 'submit-code', code: '123456' })).rejects.toSatisfy(
      (error) => EventNotAllowedError.isInstance(error) && error.status === 'cancelled',
    );
    expect(provider.callsOf('phone.check')).toHaveLength(3);
  });

  it('a flow whose record left the store (expired, deleted) is not written back from the record held here', async () => {
    const { verikit, keyv } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    await keyv.delete(`flow:${id}`);
    await expect(verikit.send(id, { type: 'submit-code', code: '000000' })).rejects.toSatisfy(
      FlowNotFoundError.isInstance,
    );
    expect(await keyv.get(`flow:${id}`)).toBeUndefined();
  });

  it('a result whose starting record another instance changed meanwhile is applied to the fresh record, not lost or doubled', async () => {
    const keyv = createMemoryKeyv();
    const provider = createTestProviderV1();
    const clock = new ManualClock();
    const a = createVerikit({ provider, secret: testSecret, clock, store: new KeyvFlowStore(keyv) });
    const b = createVerikit({ provider, secret: testSecret, clock, store: new KeyvFlowStore(keyv) });
    const flow = await a.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    let answer: (valid: { valid: boolean }) => void = () => {};
    provider.script('phone.check', () => new Promise((resolve) => (answer = resolve)));
    const submitted = a.send(flow.id, { type: 'submit-code', code: '123456' });
    await vi.waitFor(() => expect(provider.callsOf('phone.check')).toHaveLength(1));
    // While A waits for the provider, B cancels the flow: A's starting record is now stale.
    expect((await b.cancel(flow.id)).status).toBe('cancelled');
    answer({ valid: true });
    const view = await submitted;
    expect(view.status).toBe('cancelled');
    const stored = await new KeyvFlowStore(keyv).getFlow(flow.id);
    expect(stored).toMatchObject({ value: 'cancelled', version: 4 });
  });
});
