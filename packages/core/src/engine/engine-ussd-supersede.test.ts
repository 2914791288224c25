import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RateLimitedError } from '@verikit/provider';
import { KeyvFlowStore, createMemoryKeyv } from '../store/keyv-flow-store.js';
import { setup } from './engine.fixtures.js';

// Decision 1280: a newer USSD flow that takes the number's route ends the older one (`superseded`, restart allowed).
const phone = '+2348031234567';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Which call a store command belongs to, in the interleaving test: `first` or `second`. */
const caller = new AsyncLocalStorage<string>();

/**
 * The real in-memory store, where two flows taking the number's USSD route at once are made to interleave: the
 * `second` caller reads and writes the key first, then the `first` caller reads it (naming the second) and writes
 * it; neither goes on before both wrote it. Each then finds the other in the key it took.
 */
class InterleavingStore extends KeyvFlowStore {
  armed = false;
  #secondWrote = deferred();
  #bothWrote = deferred();
  #written = 0;

  override async getRoute(key: string): Promise<string | undefined> {
    if (this.armed && key.startsWith('ussd:phone:') && caller.getStore() === 'first') await this.#secondWrote.promise;
    return super.getRoute(key);
  }

  override async setRoute(key: string, flowId: string, ttlMs: number): Promise<void> {
    await super.setRoute(key, flowId, ttlMs);
    if (!this.armed || !key.startsWith('ussd:phone:')) return;
    if (caller.getStore() === 'second') this.#secondWrote.resolve();
    this.#written += 1;
    if (this.#written === 2) {
      this.armed = false;
      this.#bothWrote.resolve();
    }
    await this.#bothWrote.promise;
  }
}

describe('ussd flow superseded by a newer flow for the same number', () => {
  it('ends the older flow, from another owner, as failed with `superseded` and a restart; the newer one verifies', async () => {
    const { verikit, provider, clock } = setup();
    const older = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-a' });
    const newer = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-b' });
    expect(newer.id).not.toBe(older.id);
    expect(newer.status).toBe('awaiting-dial');

    const ended = await verikit.get(older.id);
    expect(ended).toMatchObject({
      status: 'failed',
      done: false,
      error: { code: 'superseded', messageId: 'verikit.error.superseded' },
    });
    // The dead code is no longer shown: nothing to dial that could fail the newer flow.
    expect(ended.otp).toBeUndefined();
    expect(ended.ussdCode).toBeUndefined();
    clock.advance(30_000);
    expect((await verikit.get(older.id)).allowed).toEqual(['restart', 'cancel']);

    // The service's result for the number reaches the newer flow only.
    await provider.completeUssd(phone, 'success');
    expect((await verikit.get(newer.id)).status).toBe('verified');
    expect(await verikit.get(older.id)).toMatchObject({ status: 'failed', error: { code: 'superseded' } });
  });

  it('a restart of the superseded flow takes the number back, and a result then verifies it, not the other', async () => {
    const { verikit, provider, clock } = setup();
    const older = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-a' });
    const newer = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-b' });
    clock.advance(30_000);
    expect((await verikit.send(older.id, { type: 'restart' })).status).toBe('awaiting-dial');
    expect(await verikit.get(newer.id)).toMatchObject({ status: 'failed', error: { code: 'superseded' } });
    await provider.completeUssd(phone, 'success');
    expect((await verikit.get(older.id)).status).toBe('verified');
    expect((await verikit.get(newer.id)).status).toBe('failed');
  });

  it('a flow of the same owner is joined, not superseded; other numbers and ended flows are left alone', async () => {
    const { verikit, provider } = setup();
    const first = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-a' });
    const joined = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-a' });
    expect(joined.id).toBe(first.id);
    const other = await verikit.start({ kind: 'ussd', phoneNumber: '+2348031234568' }, { owner: 'browser-b' });
    expect((await verikit.get(first.id)).status).toBe('awaiting-dial');
    await provider.completeUssd(phone, 'success');
    const version = (await verikit.get(first.id)).version;
    await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-b' });
    expect(await verikit.get(first.id)).toMatchObject({ status: 'verified', version });
    expect((await verikit.get(other.id)).status).toBe('awaiting-dial');
  });

  it('an older flow that cannot be ended is logged, and the newer flow stands', async () => {
    const { verikit, keyv, logs, provider } = setup();
    const older = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-a' });
    // The older flow's record is gone (removed from the store): the route still names it.
    expect(await keyv.delete(`flow:${older.id}`)).toBe(true);
    const newer = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-b' });
    expect(newer.status).toBe('awaiting-dial');
    expect(logs).toContainEqual({
      level: 'warn',
      message: 'verikit.supersede.failed',
      fields: { flowId: older.id, error: 'flow_not_found' },
    });
    await provider.completeUssd(phone, 'success');
    expect((await verikit.get(newer.id)).status).toBe('verified');
  });

  it('two flows taking the number at once: the one that holds the route stays, the other ends; nothing hangs', async () => {
    const store = new InterleavingStore(createMemoryKeyv());
    const { verikit, provider, clock } = setup({ store });
    const first = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-a' });
    await provider.completeUssd(phone, 'failed');
    clock.advance(30_000);
    store.armed = true;
    // The first restarts while another browser starts: both start waiting for the dial at the same moment.
    const [restarted, second] = await Promise.all([
      caller.run('first', () => verikit.send(first.id, { type: 'restart' })),
      caller.run('second', () => verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'browser-b' })),
    ]);
    expect(store.armed).toBe(false);
    // The first wrote the key last: it holds the number and stays; the second ends.
    expect((await verikit.get(restarted.id)).status).toBe('awaiting-dial');
    expect(await verikit.get(second.id)).toMatchObject({ status: 'failed', error: { code: 'superseded' } });
    await provider.completeUssd(phone, 'success');
    expect((await verikit.get(restarted.id)).status).toBe('verified');
  });

  it('as an attacker: a start by a third party learns nothing of the flow it ends, and the send limit holds', async () => {
    const { verikit, provider, logs } = setup({ policies: { maxSendsPerHour: 2 } });
    const victim = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'victim' });
    const seen = await verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'attacker' });
    // The attacker's answer has the same shape as for a number with no flow, and names nothing of the victim's.
    const fresh = await verikit.start({ kind: 'ussd', phoneNumber: '+2348031234569' }, { owner: 'attacker' });
    expect(Object.keys(seen).sort()).toEqual(Object.keys(fresh).sort());
    const shown = JSON.stringify(seen);
    expect(shown).not.toContain(victim.id);
    expect(shown).not.toContain(verikit.flowSecret(victim.id));
    expect(seen.error).toBeUndefined();
    // Nor do the logs or the victim's view carry the attacker's flow, a code or the number.
    const ended = await verikit.get(victim.id);
    expect(JSON.stringify(ended)).not.toContain(seen.id);
    expect(JSON.stringify(ended.error)).not.toMatch(/\d{4,}/);
    expect(JSON.stringify(logs)).not.toContain(phone.slice(1));

    // The number's hourly send limit counts every start: a third is refused and ends nothing.
    await expect(verikit.start({ kind: 'ussd', phoneNumber: phone }, { owner: 'attacker-2' })).rejects.toThrow(
      RateLimitedError,
    );
    expect((await verikit.get(seen.id)).status).toBe('awaiting-dial');
    expect(provider.callsOf('ussd.initiate').filter((call) => call.input.phoneNumber === phone)).toHaveLength(2);
    const received = await verikit.receive({
      id: randomUUID(),
      event: { type: 'ussd-verification', phoneNumber: phone, status: 'success' },
    });
    expect(received).toMatchObject({ outcome: 'applied', flowId: seen.id });
  });
});
