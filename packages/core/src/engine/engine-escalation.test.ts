import { ProviderUnavailableError } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it, vi } from 'vitest';
import type { FlowStore, StoreCall } from '../store/flow-store.js';
import { createVerikit } from './create-verikit.js';
import type { StartInput } from '../inputs/inputs.js';
import { setup, testSecret } from './engine.fixtures.js';

const phone = '+2348031234567';
const channels = ['sms', 'whatsapp', 'voice'] as const;
const plan: StartInput = { kind: 'phone', phoneNumber: phone, channels: ['sms', 'whatsapp'], escalateAfterMs: 45_000 };

function escalating(policies = {}) {
  return setup({ provider: createTestProviderV1({ channels }), timers: { pollMs: 0 }, policies });
}

describe('a plan that escalates on time (docs/plans.md)', () => {
  it('does not escalate over a code reported delivered: the newest send only, and an undelivered one still falls back', async () => {
    const { verikit, provider, clock } = escalating();
    const three: StartInput = { ...plan, channels: ['sms', 'whatsapp', 'voice'] };
    const flow = await verikit.start(three);
    clock.advance(5_000);
    // The SMS reached the handset: the user has the code, another channel would only cost and replace it.
    const told = await verikit.receive({
      id: 'dlr-sms-delivered',
      event: { type: 'delivery', messageId: 'req-1', status: 'delivered' },
    });
    expect(told.view).toMatchObject({ channel: 'sms', delivery: { status: 'delivered' } });
    expect(told.view!.next).toBeUndefined();
    clock.advance(600_000);
    expect(await verikit.runDueTimers()).toBe(0);
    expect(provider.callsOf('phone.send')).toHaveLength(1);

    // The user may still ask for another channel; that send's own wait starts, and a late receipt of the old SMS does
    // not stop it.
    const second = await verikit.start({ ...three, phoneNumber: '+2348031234568' });
    clock.advance(30_000);
    const resent = await verikit.send(second.id, { type: 'resend', channel: 'whatsapp' });
    expect(resent).toMatchObject({ channel: 'whatsapp', next: { channel: 'voice' } });
    await verikit.receive({ id: 'dlr-old-sms', event: { type: 'delivery', messageId: 'req-2', status: 'delivered' } });
    expect((await verikit.get(second.id)).next).toEqual(resent.next);
    clock.advance(resent.next!.at - clock.now());
    expect(await verikit.runDueTimers()).toBe(1);
    expect((await verikit.get(second.id)).channel).toBe('voice');

    // Undelivered, still: the plan falls back at once.
    const third = await verikit.start({ ...three, phoneNumber: '+2348031234569' });
    const sends = provider.callsOf('phone.send').length;
    await verikit.receive({
      id: 'dlr-third',
      event: { type: 'delivery', messageId: `req-${sends}`, status: 'undelivered', reason: 'DND' },
    });
    await verikit.runDueTimers();
    expect((await verikit.get(third.id)).channel).toBe('whatsapp');
    await expect(verikit.get(flow.id)).resolves.toMatchObject({ channel: 'sms' });
  });

  it('sends on the next channel once the time passed without a correct code, once, and says so beforehand', async () => {
    const { verikit, provider, clock } = escalating();
    const started = clock.now();
    const flow = await verikit.start(plan);
    expect(flow).toMatchObject({
      status: 'awaiting-code',
      channel: 'sms',
      next: { channel: 'whatsapp', at: started + 45_000 },
    });

    clock.advance(44_999);
    expect(await verikit.runDueTimers()).toBe(0);
    expect(provider.callsOf('phone.send')).toHaveLength(1);

    // Time is data: read after the due time, before any timer ran, the flow says the send is due.
    clock.advance(1);
    expect(await verikit.get(flow.id)).toMatchObject({
      status: 'awaiting-code',
      channel: 'sms',
      next: { at: started + 45_000 },
    });

    expect(await verikit.runDueTimers()).toBe(1);
    const escalated = await verikit.get(flow.id);
    expect(escalated).toMatchObject({ status: 'awaiting-code', channel: 'whatsapp', channelsLeft: [], sendsLeft: 3 });
    expect(escalated.next).toBeUndefined();
    expect(provider.callsOf('phone.send').map((call) => call.input.channel)).toEqual(['sms', 'whatsapp']);

    // Nothing left to escalate to: later passes send nothing.
    clock.advance(600_000);
    expect(await verikit.runDueTimers()).toBe(0);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('a correct code before the time sends nothing more', async () => {
    const { verikit, provider, clock } = escalating();
    const flow = await verikit.start(plan);
    clock.advance(10_000);
    const verified = await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode(phone)! });
    expect(verified.status).toBe('verified');
    expect(verified.next).toBeUndefined();
    clock.advance(60_000);
    expect(await verikit.runDueTimers()).toBe(0);
    expect(provider.callsOf('phone.send')).toHaveLength(1);
  });

  it('each send starts its own wait: the next channel goes escalateAfterMs after the one before', async () => {
    const { verikit, provider, clock } = escalating();
    const flow = await verikit.start({ ...plan, channels: ['sms', 'whatsapp', 'voice'] });
    clock.advance(45_000);
    await verikit.runDueTimers();
    const second = await verikit.get(flow.id);
    expect(second).toMatchObject({ channel: 'whatsapp', next: { channel: 'voice', at: clock.now() + 60_000 } });
    // The cooldown after the second send (60 s) is longer than the escalation's 45 s: the cooldown holds.
    clock.advance(59_999);
    expect(await verikit.runDueTimers()).toBe(0);
    clock.advance(1);
    expect(await verikit.runDueTimers()).toBe(1);
    expect(provider.callsOf('phone.send').map((call) => call.input.channel)).toEqual(['sms', 'whatsapp', 'voice']);
  });

  it('a send whose outcome is unknown is not followed by another before its cooldown', async () => {
    const { verikit, provider, clock } = escalating({ resendCooldownMs: 120_000 });
    provider.script('phone.send', new ProviderUnavailableError('the provider timed out'));
    const flow = await verikit.start({ ...plan, escalateAfterMs: 15_000 });
    expect(flow).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
    expect(flow.next).toEqual({ channel: 'whatsapp', at: clock.now() + 120_000 });
    clock.advance(119_999);
    expect(await verikit.runDueTimers()).toBe(0);
    clock.advance(1);
    expect(await verikit.runDueTimers()).toBe(1);
    expect(provider.callsOf('phone.send').map((call) => call.input.channel)).toEqual(['sms', 'whatsapp']);
  });

  it('the user switching channel restarts the wait; the send limit refusing the escalation stops the plan', async () => {
    const { verikit, provider, clock } = escalating({ maxSendsPerHour: 2 });
    const flow = await verikit.start({ ...plan, channels: ['sms', 'whatsapp', 'voice'] });
    clock.advance(30_000);
    const switched = await verikit.send(flow.id, { type: 'resend', channel: 'voice' });
    expect(switched).toMatchObject({ channel: 'voice', next: { channel: 'whatsapp', at: clock.now() + 60_000 } });
    clock.advance(60_000);
    // The hourly limit (2 sends) refuses the escalation: nothing is sent, and the plan sends nothing more by itself.
    expect(await verikit.runDueTimers()).toBe(1);
    const stopped = await verikit.get(flow.id);
    expect(stopped).toMatchObject({ status: 'awaiting-code', channel: 'voice', channelsLeft: ['whatsapp'] });
    expect(stopped.next).toBeUndefined();
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('two engines on one store carry out a due escalation once', async () => {
    const { verikit, provider, clock, store } = escalating();
    const other = createVerikit({ provider, secret: testSecret, clock, store, timers: { pollMs: 0 } });
    const flow = await verikit.start(plan);
    clock.advance(45_000);
    const acted = await Promise.all([verikit.runDueTimers(), other.runDueTimers()]);
    expect(acted.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
    expect((await other.get(flow.id)).channel).toBe('whatsapp');
  });

  it('refuses an escalation time a plan cannot use', async () => {
    const { verikit } = escalating();
    await expect(verikit.start({ ...plan, escalateAfterMs: 1_000 })).rejects.toMatchObject({
      code: 'invalid_input',
      issues: [{ field: 'escalateAfterMs' }],
    });
  });
});

describe('an instance that dies holding a due escalation', () => {
  /** The store as an instance sees it that hangs for good once it is about to make a timer's send: dead there. */
  function diesBeforeSending(store: FlowStore): FlowStore {
    return new Proxy(store, {
      get(target, property) {
        if (property === 'claim')
          return (key: string, ttlMs: number, call?: StoreCall) =>
            key.startsWith('timer-send:') ? new Promise<boolean>(() => {}) : target.claim(key, ttlMs, call);
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  it('committed the escalation but never sent it: another instance sends it once, after the lease', async () => {
    const { verikit, provider, clock, store } = escalating();
    const dying = createVerikit({
      provider,
      secret: testSecret,
      clock,
      store: diesBeforeSending(store),
      timers: { pollMs: 0, leaseMs: 5_000 },
    });
    const flow = await verikit.start(plan);
    clock.advance(45_000);
    void dying.runDueTimers();
    await vi.waitFor(async () => expect((await verikit.get(flow.id)).status).toBe('sending'));
    // The lease holds: nobody else takes the timer meanwhile.
    expect(await verikit.runDueTimers()).toBe(0);
    expect(provider.callsOf('phone.send')).toHaveLength(1);
    clock.advance(5_000);
    await verikit.runDueTimers();
    expect(provider.callsOf('phone.send').map((call) => call.input.channel)).toEqual(['sms', 'whatsapp']);
    expect(await verikit.get(flow.id)).toMatchObject({ status: 'awaiting-code', channel: 'whatsapp' });
    clock.advance(60_000);
    expect(await verikit.runDueTimers()).toBe(0);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });

  it('claimed the send (it may have left): nobody sends it again; past its deadline its outcome is unknown', async () => {
    const { verikit, provider, clock, store } = escalating();
    const flow = await verikit.start(plan);
    // The instance that claims it hangs in the provider call for good (as if it died with the request on the wire).
    provider.script('phone.send', () => new Promise(() => {}));
    const dying = createVerikit({ provider, secret: testSecret, clock, store, timers: { pollMs: 0 } });
    clock.advance(45_000);
    void dying.runDueTimers();
    await vi.waitFor(() => expect(provider.callsOf('phone.send')).toHaveLength(2));
    clock.advance(15_000);
    await verikit.runDueTimers();
    expect(provider.callsOf('phone.send')).toHaveLength(2);
    expect(await verikit.get(flow.id)).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
  });
});
