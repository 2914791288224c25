import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CapabilityError, InvalidInputError, RateLimitedError, type ProviderV1 } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { ConflictError } from '../errors/index.js';
import { KeyvFlowStore } from '../store/keyv-flow-store.js';
import { dialInReservationKey } from '../keys/store-keys.js';
import { setup } from './engine.fixtures.js';
import type { VerikitOptions } from './options.js';

const victim = '+2348031234567';
const attacker = '+2348037654321';
const serviceCode = '*384*1234#';

/** The test provider with a dial-in capability: nothing is sent in a dial-in flow. */
function carrier() {
  const dialIn: NonNullable<ProviderV1['dialIn']> = {
    serviceCode,
    parseSession: () => {
      throw new Error('not used by the engine');
    },
    answer: (kind, screen) => ({ body: `${kind} ${screen}`, contentType: 'text/plain' }),
  };
  return Object.assign(createTestProviderV1(), { dialIn });
}

/** The reference a view's `ussdCode` carries: `*384*1234*583921#` → `583921`. */
function referenceOf(ussdCode: string | undefined): string {
  const match = /^\*384\*1234\*([0-9]+)#$/.exec(ussdCode ?? '');
  if (match === null) throw new Error(`not a dial-in code: ${ussdCode}`);
  return match[1]!;
}

function dialIn(store?: KeyvFlowStore, options: Pick<Partial<VerikitOptions>, 'guard'> = {}) {
  const env = setup({ provider: carrier(), ...(store === undefined ? {} : { store }), ...options });
  /** The carrier reports a dial: one delivery per USSD session, its id the session id. */
  const dial = (phoneNumber: string, reference: string, sessionId = `ATUid_${randomUUID()}`) =>
    env.verikit.receive({ id: `africastalking:ussd:${sessionId}`, event: { type: 'dial-in', phoneNumber, reference } });
  return { ...env, dial };
}

describe('dial-in flow', () => {
  it('shows the service code with a one-time reference, and verifies when the number dials it', async () => {
    const { verikit, dial } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    expect(started).toMatchObject({ kind: 'dial-in', status: 'awaiting-dial', allowed: ['cancel'] });
    const reference = referenceOf(started.ussdCode);
    expect(reference).toHaveLength(6);
    const received = await dial(victim, reference);
    expect(received).toMatchObject({
      outcome: 'applied',
      flowId: started.id,
      view: { status: 'verified', done: true },
    });
    const view = await verikit.get(started.id);
    expect(view.ussdCode).toBeUndefined();
    const proof = await verikit.issueProof(started.id);
    expect(await verikit.redeemProof(proof.token, { phoneNumber: victim })).toMatchObject({ phoneNumber: victim });
  });

  it('an attacker dialling the victim’s reference from another number verifies nothing', async () => {
    const { verikit, dial } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    expect(await dial(attacker, referenceOf(started.ussdCode))).toEqual({ outcome: 'no-active-flow' });
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
  });

  it('a forged dial with a guessed reference finds no flow', async () => {
    const { verikit, dial } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    const reference = referenceOf(started.ussdCode);
    const guess = String((Number(reference) + 1) % 1_000_000).padStart(6, '0');
    expect(await dial(victim, guess)).toEqual({ outcome: 'no-active-flow' });
    await expect(dial(victim, '')).rejects.toSatisfy(InvalidInputError.isInstance);
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
  });

  it('an expired reference verifies nothing, and is not renewed', async () => {
    const { verikit, dial, clock } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    clock.set(started.expiresAt!);
    const received = await dial(victim, referenceOf(started.ussdCode));
    expect(received.outcome).toBe('no-active-flow');
    expect(await verikit.get(started.id)).toMatchObject({ status: 'expired', done: true });
    expect((await verikit.get(started.id)).ussdCode).toBeUndefined();
  });

  it('a replayed session is a duplicate; a new session after the verification changes nothing', async () => {
    const { verikit, dial } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    const reference = referenceOf(started.ussdCode);
    expect((await dial(victim, reference, 'ATUid_same')).outcome).toBe('applied');
    expect(await dial(victim, reference, 'ATUid_same')).toEqual({ outcome: 'duplicate' });
    expect(await dial(victim, reference, 'ATUid_other')).toMatchObject({ outcome: 'no-active-flow' });
    expect((await verikit.get(started.id)).version).toBe(2);
  });

  it('a cancelled flow takes no dial', async () => {
    const { verikit, dial } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    await verikit.cancel(started.id);
    expect((await dial(victim, referenceOf(started.ussdCode))).outcome).toBe('no-active-flow');
    expect((await verikit.get(started.id)).status).toBe('cancelled');
  });

  it('without a number, records which number dialled ("who is this")', async () => {
    const { verikit, dial } = dialIn();
    const started = await verikit.start({ kind: 'dial-in' });
    expect(started.phoneNumber).toBeUndefined();
    const reference = referenceOf(started.ussdCode);
    expect(reference).toHaveLength(8);
    const received = await dial(attacker, reference);
    expect(received.view).toMatchObject({ status: 'verified', phoneNumber: '+234******4321' });
    const proof = await verikit.issueProof(started.id);
    // Whoever dialled is who the proof names: only an app that named the method takes it (docs/security.md).
    await expect(verikit.redeemProof(proof.token, { phoneNumber: attacker })).rejects.toMatchObject({
      code: 'proof_rejected',
      reason: 'method',
      field: 'token',
    });
    expect(
      await verikit.redeemProof(proof.token, { phoneNumber: attacker }, { methods: ['dial-in-identify'] }),
    ).toMatchObject({ phoneNumber: attacker, kind: 'dial-in', method: 'dial-in-identify' });
  });

  it('a proof says how: a dial from the number started for is `dial-in`, taken by default, refused when not named', async () => {
    const { verikit, dial } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    await dial(victim, referenceOf(started.ussdCode));
    expect(await verikit.verification(started.id)).toMatchObject({ method: 'dial-in' });
    const proof = await verikit.issueProof(started.id);
    await expect(
      verikit.redeemProofs([{ token: proof.token, claim: { phoneNumber: victim } }], { methods: ['phone'] }),
    ).rejects.toMatchObject({ reason: 'method', field: 'proofs.0.token' });
    await expect(
      verikit.redeemProof(proof.token, { phoneNumber: victim }, { methods: ['sms' as never] }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'options.methods.0' });
    // The refusals used nothing up.
    expect(await verikit.redeemProof(proof.token, { phoneNumber: victim })).toMatchObject({ method: 'dial-in' });
  });

  it('a reference verifying a number is not taken for a "who is this" flow, nor the other way round', async () => {
    const { verikit, dial } = dialIn();
    const anyone = await verikit.start({ kind: 'dial-in' });
    const matched = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    // The 8-digit reference of the open flow, typed from the victim's number, is not the victim flow's.
    expect((await dial(victim, referenceOf(anyone.ussdCode))).flowId).toBe(anyone.id);
    expect((await verikit.get(matched.id)).status).toBe('awaiting-dial');
  });

  it('a start whose reference another live flow holds draws another: no two live flows share a reference', async () => {
    // A store on which the first two references drawn are held by other flows.
    class BusyStore extends KeyvFlowStore {
      readonly tried: string[] = [];
      override claim(key: string, ttlMs: number) {
        if (!key.startsWith('dial-in-reserved:')) return super.claim(key, ttlMs);
        this.tried.push(key);
        return this.tried.length <= 2 ? Promise.resolve(false) : super.claim(key, ttlMs);
      }
    }
    const store = new BusyStore();
    const { verikit, dial } = dialIn(store);
    const started = await verikit.start({ kind: 'dial-in' });
    expect(new Set(store.tried).size).toBe(3);
    const held = (await store.getFlow(started.id))!.context.referenceHash as string;
    expect(store.tried[2]).toBe(dialInReservationKey(held));
    // The flow holds its reference while its code lives: a second claim of it is refused.
    expect(await store.claim(dialInReservationKey(held), 60_000)).toBe(false);
    expect(await dial(victim, referenceOf(started.ussdCode))).toMatchObject({ outcome: 'applied', flowId: started.id });
  });

  it('gives up with a retryable ConflictError, writing no flow, when five references drawn are all held', async () => {
    class FullStore extends KeyvFlowStore {
      override claim(key: string, ttlMs: number) {
        return key.startsWith('dial-in-reserved:') ? Promise.resolve(false) : super.claim(key, ttlMs);
      }
    }
    const { verikit, raw } = dialIn(new FullStore());
    await expect(verikit.start({ kind: 'dial-in', phoneNumber: victim })).rejects.toSatisfy(
      (error) =>
        ConflictError.isInstance(error) && error.isRetryable && /no free dial-in reference/.test(error.message),
    );
    expect(raw()).not.toContain('verikit:flow:');
  });

  it('stores the reference only inside the code shown, and never once the flow ended', async () => {
    const { verikit, dial, raw } = dialIn();
    const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
    const reference = referenceOf(started.ussdCode);
    expect(raw().split(reference).length - 1).toBe(1);
    expect(raw()).not.toContain(victim.slice(1) + reference);
    await dial(victim, reference);
    expect(raw()).not.toContain(reference);
    expect(raw()).not.toContain(`dial-in:${reference}`);
  });

  it('is refused before anything is written when the provider cannot take dials', async () => {
    const { verikit, raw } = setup({ provider: createTestProviderV1() });
    await expect(verikit.start({ kind: 'dial-in', phoneNumber: victim })).rejects.toSatisfy(CapabilityError.isInstance);
    expect(raw()).not.toContain('flow:');
  });

  it('attacker: guessing references is stopped after the wrong-reference limit, per dialling number', async () => {
    const { verikit, dial, logs } = dialIn();
    const started = await verikit.start({ kind: 'dial-in' });
    const right = referenceOf(started.ussdCode);
    const wrong = (index: number) => String((Number(right) + 1 + index) % 100_000_000).padStart(8, '0');
    for (let index = 0; index < 5; index += 1)
      expect(await dial(attacker, wrong(index))).toEqual({ outcome: 'no-active-flow' });
    // Past the limit every dial of that number is refused before any lookup, the right reference too.
    await expect(dial(attacker, wrong(5))).rejects.toSatisfy(
      (error) => RateLimitedError.isInstance(error) && /wrong-references-per-number limit of 5/.test(error.message),
    );
    await expect(dial(attacker, right)).rejects.toSatisfy(RateLimitedError.isInstance);
    expect((await verikit.get(started.id)).status).toBe('awaiting-dial');
    expect(logs).toContainEqual(expect.objectContaining({ message: 'verikit.guard.refused' }));
    // Another number is not held back by the attacker's guesses.
    expect((await dial(victim, right)).outcome).toBe('applied');
  });

  it('counts only wrong references, and bounds them in all whatever number dials', async () => {
    const { verikit, dial } = dialIn(undefined, {
      guard: { wrongReferencesPerNumber: { points: 2 }, wrongReferences: { points: 4 } },
    });
    // Right references give their unit back: three verified dials from one number use none of its two.
    for (let index = 0; index < 3; index += 1) {
      const started = await verikit.start({ kind: 'dial-in', phoneNumber: victim });
      expect((await dial(victim, referenceOf(started.ussdCode))).outcome).toBe('applied');
    }
    const numbers = ['+2348030000001', '+2348030000002', '+2348030000003', '+2348030000004', '+2348030000005'];
    for (const number of numbers.slice(0, 4)) expect((await dial(number, '12345678')).outcome).toBe('no-active-flow');
    await expect(dial(numbers[4]!, '12345678')).rejects.toSatisfy(
      (error) => RateLimitedError.isInstance(error) && /the wrong-references limit of 4/.test(error.message),
    );
  });

  it('a number-less start honours its idempotency key: a retry returns the same flow and reference', async () => {
    const { verikit } = dialIn();
    const first = await verikit.start({ kind: 'dial-in' }, { idempotencyKey: 'dial-in-retry-1' });
    const retry = await verikit.start({ kind: 'dial-in' }, { idempotencyKey: 'dial-in-retry-1' });
    expect([retry.id, retry.ussdCode]).toEqual([first.id, first.ussdCode]);
    const other = await verikit.start({ kind: 'dial-in' }, { idempotencyKey: 'dial-in-retry-2' });
    expect(other.id).not.toBe(first.id);
  });
});
