import { createTestProviderV1 } from '@verikit/testing';
import { ManualClock } from './manual-clock.fixtures.js';
import { describe, expect, it } from 'vitest';
import { EventNotAllowedError } from '../errors/index.js';
import { KeyvFlowStore, createMemoryKeyv } from '../store/keyv-flow-store.js';
import { createVerikit } from './create-verikit.js';
import { setup, testSecret } from './engine.fixtures.js';

describe('concurrency', () => {
  it('100 parallel events on one flow, through two engines on one store, leave a consistent record with no lost update', async () => {
    const keyv = createMemoryKeyv();
    const provider = createTestProviderV1();
    const clock = new ManualClock();
    const options = { provider, secret: testSecret, clock, policies: { maxAttempts: 100 } };
    // Two engines: each serializes its own commits; between them, compare-and-set decides.
    const a = createVerikit({ ...options, store: new KeyvFlowStore(keyv) });
    const b = createVerikit({ ...options, store: new KeyvFlowStore(keyv) });
    const { id, version } = await a.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, index) =>
        (index % 2 ? a : b).send(id, { type: 'submit-code', code: String(100000 + index) }),
      ),
    );
    const applied = results.filter((result) => result.status === 'fulfilled');
    const view = await a.get(id);
    // Every event that returned success is in the record: 100 versions and 100 attempts used.
    expect(view.version).toBe(version + applied.length);
    expect(view.attemptsLeft).toBe(100 - applied.length);
    // The last one used the last attempt and locked the flow: exactly one event can do that.
    const refused = results.filter((result) => result.status === 'rejected');
    for (const result of refused)
      expect(EventNotAllowedError.isInstance((result as PromiseRejectedResult).reason)).toBe(true);
    expect(applied.length + refused.length).toBe(100);
    expect(applied.length).toBe(100);
    expect(view.status).toBe('locked');
  });

  it('parallel wrong submits can never exceed the attempt limit (phone, provider-checked)', async () => {
    const maxAttempts = 5;
    const { verikit, provider } = setup({
      provider: createTestProviderV1({ latencyMs: 2 }),
      policies: { maxAttempts },
    });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    // Every wrong submit the flow accepted made exactly one check and used exactly one attempt; the
    // others (made while a check was running) were refused and changed nothing.
    const expectConsistent = (
      results: Array<PromiseSettledResult<unknown>>,
      view: { attemptsLeft?: number; status: string },
      checksBefore: number,
    ) => {
      const applied = results.filter((result) => result.status === 'fulfilled').length;
      const checks = provider.callsOf('phone.check').length;
      for (const result of results) {
        if (result.status === 'rejected') expect(EventNotAllowedError.isInstance(result.reason)).toBe(true);
      }
      expect(checks - checksBefore).toBe(applied);
      expect(checks + view.attemptsLeft!).toBe(maxAttempts);
      expect(view.status).toBe(view.attemptsLeft === 0 ? 'locked' : 'awaiting-code');
    };
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) => verikit.send(id, { type: 'submit-code', code: String(200000 + index) })),
    );
    expect(results.filter((result) => result.status === 'rejected').length).toBeGreaterThan(0);
    expectConsistent(results, await verikit.get(id), 0);
    // Keep going, in parallel bursts, until the flow can take no more: it must end locked, after exactly maxAttempts checks.
    for (let round = 0; round < 50 && !(await verikit.get(id)).done; round += 1) {
      const checksBefore = provider.callsOf('phone.check').length;
      const burst = await Promise.allSettled(
        Array.from({ length: 10 }, (_, index) =>
          verikit.send(id, { type: 'submit-code', code: String(300000 + index) }),
        ),
      );
      expectConsistent(burst, await verikit.get(id), checksBefore);
    }
    expect(await verikit.get(id)).toMatchObject({ status: 'locked', done: true, attemptsLeft: 0 });
    expect(provider.callsOf('phone.check')).toHaveLength(maxAttempts);
    await expect(verikit.send(id, { type: 'submit-code', code: '123456' })).rejects.toSatisfy(
      EventNotAllowedError.isInstance,
    );
    expect(provider.callsOf('phone.check')).toHaveLength(maxAttempts);
  });

  it('parallel wrong submits can never exceed the attempt limit (identity, engine-checked), across two engines', async () => {
    const keyv = createMemoryKeyv();
    const provider = createTestProviderV1();
    const options = { provider, secret: testSecret, policies: { maxAttempts: 3 } };
    const a = createVerikit({ ...options, store: new KeyvFlowStore(keyv) });
    const b = createVerikit({ ...options, store: new KeyvFlowStore(keyv) });
    const { id, version } = await a.start({ kind: 'identity', idType: 'nin', number: '12345678901' });
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, (_, index) =>
        (index % 2 ? a : b).send(id, { type: 'submit-code', code: String(300000 + index) }),
      ),
    );
    const view = await b.get(id);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(3);
    expect(view).toMatchObject({ status: 'locked', attemptsLeft: 0, version: version + 3 });
  });

  it('parallel resends send at most once per accepted user action', async () => {
    const { verikit, provider, clock } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    clock.advance(30_000);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => verikit.send(id, { type: 'resend' })));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });
});
