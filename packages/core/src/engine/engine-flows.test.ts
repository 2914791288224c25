import { randomUUID } from 'node:crypto';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { CapabilityError, ProviderRejectedError, ProviderUnavailableError, RateLimitedError } from '@verikit/provider';
import { EventNotAllowedError } from '../errors/index.js';
import type { FlowRecord } from '../store/flow-store.js';
import { createMemoryKeyv, KeyvFlowStore } from '../store/keyv-flow-store.js';
import { setup } from './engine.fixtures.js';
import { ManualClock } from './manual-clock.fixtures.js';

const phone = '+2348012345678';

describe('phone flow', () => {
  it('verifies with the right code after a wrong one', async () => {
    const { verikit, provider } = setup();
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(started).toMatchObject({
      status: 'awaiting-code',
      attemptsLeft: 5,
      allowed: ['submit-code', 'cancel'],
      channel: 'sms',
    });
    const wrong = await verikit.send(started.id, { type: 'submit-code', code: '000000' });
    expect(wrong).toMatchObject({ status: 'awaiting-code', attemptsLeft: 4, error: { code: 'code_invalid' } });
    const verified = await verikit.send(started.id, { type: 'submit-code', code: provider.lastCode(phone)! });
    expect(verified).toMatchObject({ status: 'verified', done: true, allowed: [], attemptsLeft: 4 });
    expect(provider.callsOf('phone.send')).toHaveLength(1);
    expect(provider.callsOf('phone.check')).toHaveLength(2);
  });

  it('locks after the last wrong code', async () => {
    const { verikit } = setup({ policies: { maxAttempts: 2 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    await verikit.send(id, { type: 'submit-code', code: '000000' });
    const locked = await verikit.send(id, { type: 'submit-code', code: '000001' });
    expect(locked).toMatchObject({ status: 'locked', done: true, attemptsLeft: 0 });
    await expect(verikit.send(id, { type: 'submit-code', code: '123456' })).rejects.toThrow(EventNotAllowedError);
    await expect(verikit.cancel(id)).rejects.toThrow(EventNotAllowedError);
    expect((await verikit.get(id)).status).toBe('locked');
  });

  it('expires when its code TTL passes, with no timer running', async () => {
    const { verikit, clock } = setup();
    const { id, expiresAt } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    clock.set(expiresAt!);
    expect((await verikit.get(id)).status).toBe('expired');
    const error = await verikit.send(id, { type: 'submit-code', code: '123456' }).catch((caught: unknown) => caught);
    expect(EventNotAllowedError.isInstance(error) && error.status).toBe('expired');
  });

  it('resends with a growing cooldown and a per-flow limit', async () => {
    const { verikit, clock, provider } = setup({ policies: { maxSendsPerFlow: 3 } });
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(started.resendAvailableAt! - clock.now()).toBe(30_000);
    const early = await verikit.send(started.id, { type: 'resend' }).catch((caught: unknown) => caught);
    expect(EventNotAllowedError.isInstance(early) && early.message).toContain('resend is available in 30 s');
    clock.advance(30_000);
    const second = await verikit.send(started.id, { type: 'resend' });
    expect(second.resendAvailableAt! - clock.now()).toBe(60_000);
    clock.advance(60_000);
    await verikit.send(started.id, { type: 'resend' });
    clock.advance(120_000);
    await expect(verikit.send(started.id, { type: 'resend' })).rejects.toThrow(/limit of 3 sends/);
    expect(provider.callsOf('phone.send')).toHaveLength(3);
    const code = provider.lastCode(phone)!;
    expect((await verikit.send(started.id, { type: 'submit-code', code })).status).toBe('verified');
  });

  it('limits sends per number per hour across flows', async () => {
    const { verikit, clock, provider } = setup({ policies: { maxSendsPerHour: 2 } });
    await verikit.start({ kind: 'phone', phoneNumber: phone });
    await verikit.start({ kind: 'phone', phoneNumber: phone });
    const error = await verikit.start({ kind: 'phone', phoneNumber: phone }).catch((caught: unknown) => caught);
    expect(RateLimitedError.isInstance(error)).toBe(true);
    expect(provider.callsOf('phone.send')).toHaveLength(2);
    clock.advance(60 * 60_000);
    expect((await verikit.start({ kind: 'phone', phoneNumber: phone })).status).toBe('awaiting-code');
  });

  it('refuses a channel the provider lacks, writing nothing', async () => {
    const { verikit, raw } = setup({ provider: createTestProviderV1({ channels: ['sms'] }) });
    const before = raw();
    const error = await verikit
      .start({ kind: 'phone', phoneNumber: phone, channel: 'voice' })
      .catch((caught: unknown) => caught);
    expect(CapabilityError.isInstance(error) && error.field).toBe('channel');
    expect(raw()).toBe(before);
  });

  it('shows a failed send that may have gone out as outcome_unknown, and lets the user resend after the cooldown', async () => {
    const { verikit, provider, clock } = setup();
    provider.failNext('phone.send', new ProviderUnavailableError('the service did not answer within 10000 ms'));
    const failed = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(failed).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' }, allowed: ['cancel'] });
    clock.advance(30_000);
    expect((await verikit.send(failed.id, { type: 'resend' })).status).toBe('awaiting-code');
  });

  it('a timeout keeps its own figure readable in the view (15000 ms), and a code next to it is still masked', async () => {
    const { verikit, provider } = setup();
    provider.failNext(
      'phone.send',
      new ProviderUnavailableError('sms.send: the service did not answer within 15000 ms'),
    );
    const failed = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    expect(failed.error!.message).toContain('sms.send: the service did not answer within 15000 ms');
    provider.failNext('phone.send', new ProviderUnavailableError('code 482913 sent to 08012345678, retry in 2000 ms'));
    const masked = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    expect(masked.error!.message).toContain('code •••••• sent to •••••••••••, retry in 2000 ms');
  });

  it("a provider's error message that echoes an identity number or a code is masked in the view and the record", async () => {
    const { verikit, provider, raw } = setup();
    provider.failNext(
      'identity.sendOtp',
      new ProviderRejectedError('BVN 12345678901 is not registered (code 482913)\u0000'),
    );
    const failed = await verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    expect(failed).toMatchObject({ status: 'send-failed', error: { code: 'provider_rejected' } });
    expect(failed.error!.message).toBe('BVN ••••••••••• is not registered (code ••••••)');
    expect(raw()).not.toContain('12345678901');
    expect(raw()).not.toContain('482913');
  });

  it('gives the attempt back when the provider could not check the code', async () => {
    const { verikit, provider } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    provider.failNext('phone.check', new ProviderUnavailableError('timeout'));
    expect(await verikit.send(id, { type: 'submit-code', code: '123456' })).toMatchObject({
      status: 'awaiting-code',
      attemptsLeft: 5,
    });
  });
});

describe('effects whose outcome is unknown', () => {
  it('after the deadline shows outcome_unknown, never repeats the send, and applies a late success', async () => {
    // A provider that ignores the abort signal and answers after the deadline.
    const provider = createTestProviderV1();
    const { verikit } = setup({ provider, clock: { now: () => Date.now() }, policies: { effectTimeoutMs: 100 } });
    provider.script('phone.send', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { requestId: 'late-request' };
    });
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(view).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
    expect(view.allowed).toContain('cancel');
    const seen = await new Promise((resolve) => {
      const unsubscribe = verikit.subscribe(view.id, (next) => {
        if (next.status === 'awaiting-code') {
          unsubscribe();
          resolve(next.status);
        }
      });
    });
    expect(seen).toBe('awaiting-code');
    expect(provider.callsOf('phone.send')).toHaveLength(1);
  });

  it('with an injected clock that does not move, a timed-out send still shows outcome_unknown', async () => {
    const provider = createTestProviderV1();
    const { verikit } = setup({ provider, policies: { effectTimeoutMs: 100 } });
    provider.script('phone.send', () => new Promise(() => {}));
    const view = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(view).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
  });

  it('a check with no answer by the deadline gives the attempt back, and its late answer is applied', async () => {
    const provider = createTestProviderV1();
    const { verikit } = setup({ provider, policies: { effectTimeoutMs: 100, maxAttempts: 1 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    let answer!: (result: { valid: boolean }) => void;
    provider.script('phone.check', () => new Promise((resolve) => (answer = resolve)));
    const unknown = await verikit.send(id, { type: 'submit-code', code: '123456' });
    expect(unknown).toMatchObject({ status: 'awaiting-code', attemptsLeft: 1, error: { code: 'outcome_unknown' } });
    const verified = new Promise((resolve) =>
      verikit.subscribe(id, (view) => view.status === 'verified' && resolve(view.status)),
    );
    answer({ valid: true });
    expect(await verified).toBe('verified');
  });

  it('a check the provider refuses counts as an attempt; an unreachable provider does not', async () => {
    const { verikit, provider } = setup({ policies: { maxAttempts: 2 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    provider.failNext('phone.check', new ProviderUnavailableError('down'));
    expect((await verikit.send(id, { type: 'submit-code', code: '000000' })).attemptsLeft).toBe(2);
    provider.failNext('phone.check', new ProviderRejectedError('Error sending OTP'));
    expect(await verikit.send(id, { type: 'submit-code', code: '000000' })).toMatchObject({
      attemptsLeft: 1,
      error: { code: 'provider_rejected' },
    });
    provider.failNext('phone.check', new ProviderRejectedError('Error sending OTP'));
    expect((await verikit.send(id, { type: 'submit-code', code: '000000' })).status).toBe('locked');
  });

  it('an identity OTP whose delivery outcome is unknown can still be entered', async () => {
    const provider = createTestProviderV1();
    const { verikit } = setup({ provider, policies: { effectTimeoutMs: 100 } });
    let otp = '';
    provider.script('identity.sendOtp', (input) => {
      otp = input.otp;
      return new Promise(() => {});
    });
    const view = await verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    expect(view).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
    expect(view.allowed).toContain('submit-code');
    expect((await verikit.send(view.id, { type: 'submit-code', code: otp })).status).toBe('verified');
  });

  it('an identity OTP whose delivery outcome is unknown still expires at its expiresAt', async () => {
    const provider = createTestProviderV1();
    const { verikit, clock } = setup({ provider, policies: { effectTimeoutMs: 100 } });
    let otp = '';
    provider.script('identity.sendOtp', (input) => {
      otp = input.otp;
      return new Promise(() => {});
    });
    const view = await verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    expect(view.status).toBe('send-failed');
    clock.advance(view.expiresAt! - clock.now());
    const expired = await verikit.get(view.id);
    expect(expired.status).toBe('expired');
    expect(expired.allowed).not.toContain('submit-code');
    const refused = await verikit.send(view.id, { type: 'submit-code', code: otp }).catch((error: unknown) => error);
    expect(EventNotAllowedError.isInstance(refused)).toBe(true);
  });

  it('a flow left in sending by a crashed process shows outcome_unknown after its deadline; reads never resend, a resend after the cooldown sends once', async () => {
    const { verikit, clock, keyv, provider } = setup();
    // Capture the record the engine committed before it made the call: what a process that died
    // between the commit and the provider's answer leaves behind.
    let crashed: FlowRecord | undefined;
    provider.script('phone.send', async () => {
      const flowId = provider.calls.at(-1)!.idempotencyKey.split(':effect:')[0]!;
      crashed = await keyv.get(`flow:${flowId}`);
      return { requestId: 'answer-lost-in-the-crash' };
    });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(crashed).toMatchObject({
      id,
      value: 'sending',
      context: { effect: { id: `${id}:effect:1`, kind: 'phone.send' } },
    });
    await keyv.set(`flow:${id}`, crashed);
    const { deadline } = crashed!.context.effect as { deadline: number };
    expect(provider.callsOf('phone.send')).toHaveLength(1);

    clock.set(deadline - 1);
    expect((await verikit.get(id)).status).toBe('sending');
    clock.set(deadline);
    const unknown = await verikit.get(id);
    expect(unknown).toMatchObject({ status: 'send-failed', error: { code: 'outcome_unknown' } });
    // The first send's cooldown (30 s) outlasts its deadline (15 s): resend comes when the cooldown ends.
    expect(unknown.allowed).toEqual(['cancel']);
    await expect(verikit.send(id, { type: 'resend' })).rejects.toThrow(/resend is available in 15 s/);
    clock.set(unknown.resendAvailableAt!);
    const ready = await verikit.get(id);
    expect(ready).toMatchObject({
      status: 'send-failed',
      error: { code: 'outcome_unknown' },
      allowed: ['resend', 'cancel'],
    });
    await verikit.get(id);
    // Reading the flow, however often, never repeats the send: only a new user action does.
    expect(provider.callsOf('phone.send')).toHaveLength(1);

    const resent = await verikit.send(id, { type: 'resend' });
    expect(resent).toMatchObject({ status: 'awaiting-code', attemptsLeft: 5 });
    expect(resent.error).toBeUndefined();
    expect(provider.callsOf('phone.send')).toHaveLength(2);
    expect(provider.callsOf('phone.send')[1]!.idempotencyKey).toBe(`${id}:effect:2`);
    expect((await verikit.send(id, { type: 'submit-code', code: provider.lastCode(phone)! })).status).toBe('verified');
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  });
});

describe('effects are committed before they run', () => {
  it('while phone.send runs, the stored flow is already in sending with the effect id the provider gets as idempotency key', async () => {
    const { verikit, provider, keyv, clock } = setup();
    const seen: Array<{ idempotencyKey: string; stored: FlowRecord | undefined }> = [];
    // Assertions inside the provider call would be swallowed (the engine turns a throw into send-failed):
    // record what the store held, and check it after.
    const inspect = async () => {
      const { idempotencyKey } = provider.calls.at(-1)!;
      const flowId = idempotencyKey.split(':effect:')[0]!;
      seen.push({ idempotencyKey, stored: await keyv.get(`flow:${flowId}`) });
      return { requestId: `req-${seen.length}` };
    };
    provider.script('phone.send', inspect, inspect);
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    clock.advance(30_000);
    await verikit.send(id, { type: 'resend' });
    expect(seen.map((each) => each.idempotencyKey)).toEqual([`${id}:effect:1`, `${id}:effect:2`]);
    expect(provider.callsOf('phone.send').map((call) => call.idempotencyKey)).toEqual([
      `${id}:effect:1`,
      `${id}:effect:2`,
    ]);
    for (const { idempotencyKey, stored } of seen) {
      expect(stored).toMatchObject({
        id,
        value: 'sending',
        context: { effect: { id: idempotencyKey, kind: 'phone.send' } },
      });
    }
    // After the call, the answer is committed on top: the effect is settled.
    const after = (await keyv.get(`flow:${id}`)) as FlowRecord;
    expect(after).toMatchObject({ value: 'awaiting-code', context: { requestId: 'req-2' } });
    expect(after.context.effect).toBeUndefined();
  });
});

describe('identity flow', () => {
  it.each(['bvn', 'nin'] as const)('verifies a %s with the OTP the engine generated', async (idType) => {
    const provider = createTestProviderV1({ identities: { '22212345678': '+2348099999999' } });
    const { verikit } = setup({ provider });
    const started = await verikit.start({ kind: 'identity', idType, number: '22212345678' });
    expect(started).toMatchObject({ status: 'awaiting-code', idType, number: '*******5678', attemptsLeft: 5 });
    const otp = provider.lastCode('+2348099999999')!;
    expect(otp).toMatch(/^\d{6}$/);
    const wrongCode = otp === '000000' ? '111111' : '000000';
    expect((await verikit.send(started.id, { type: 'submit-code', code: wrongCode })).attemptsLeft).toBe(4);
    expect((await verikit.send(started.id, { type: 'submit-code', code: otp })).status).toBe('verified');
  });

  it('a resend makes a new code and the old one stops working', async () => {
    const { verikit, provider, clock } = setup();
    const { id } = await verikit.start({ kind: 'identity', idType: 'bvn', number: '12345678901' });
    const first = provider.lastCode('+2348000000000')!;
    clock.advance(30_000);
    await verikit.send(id, { type: 'resend' });
    const second = provider.lastCode('+2348000000000')!;
    expect(provider.callsOf('identity.sendOtp')).toHaveLength(2);
    if (first !== second) {
      expect((await verikit.send(id, { type: 'submit-code', code: first })).status).toBe('awaiting-code');
    }
    expect((await verikit.send(id, { type: 'submit-code', code: second })).status).toBe('verified');
  });

  it('locks and expires', async () => {
    const { verikit, clock } = setup({ policies: { maxAttempts: 1 } });
    const a = await verikit.start({ kind: 'identity', idType: 'nin', number: '12345678901' });
    expect((await verikit.send(a.id, { type: 'submit-code', code: '0000000' })).status).toBe('locked');
    const b = await verikit.start({ kind: 'identity', idType: 'nin', number: '12345678902' });
    clock.advance(10 * 60_000);
    expect((await verikit.get(b.id)).status).toBe('expired');
    expect((await verikit.send(b.id, { type: 'resend' })).status).toBe('awaiting-code');
  });
});

describe('ussd flow', () => {
  it('shows the code to dial and is verified by the service event', async () => {
    const { verikit, provider } = setup();
    const started = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    expect(started).toMatchObject({
      status: 'awaiting-dial',
      ussdCode: '*384*1234#',
      otp: '4321',
      allowed: ['cancel'],
    });
    await provider.completeUssd(phone, 'success');
    const done = await verikit.get(started.id);
    expect(done).toMatchObject({ status: 'verified', done: true });
    expect(done.otp).toBeUndefined();
  });

  it("the route that takes the service's result to the flow lives as long as the flow waits for the dial", async () => {
    // No retention: the route set while the initiation call runs lives as long as that call may (effectTimeoutMs).
    // The store's expiry follows the engine's manual clock, so the test moves time past it without sleeping.
    const clock = new ManualClock();
    const store = new KeyvFlowStore(createMemoryKeyv({ clock }));
    const { verikit } = setup({
      clock,
      store,
      policies: { retentionMs: 0, resendCooldownMs: 0, effectTimeoutMs: 10_000 },
    });
    const started = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    expect(started.status).toBe('awaiting-dial');
    clock.advance(10_300);
    const received = await verikit.receive({
      id: randomUUID(),
      event: { type: 'ussd-verification', phoneNumber: phone, status: 'success' },
    });
    expect(received).toMatchObject({ outcome: 'applied', flowId: started.id });
    expect((await verikit.get(started.id)).status).toBe('verified');
  });

  it('fails, then restarts after the cooldown', async () => {
    const { verikit, provider, clock } = setup();
    const { id } = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    await provider.completeUssd(phone, 'failed');
    expect(await verikit.get(id)).toMatchObject({ status: 'failed', error: { code: 'dial_failed' } });
    await expect(verikit.send(id, { type: 'restart' })).rejects.toThrow(/resend is available in/);
    clock.advance(30_000);
    expect((await verikit.send(id, { type: 'restart' })).status).toBe('awaiting-dial');
    expect(provider.callsOf('ussd.initiate')).toHaveLength(2);
  });

  it('ignores an event for a number with no active flow, and a second event once verified', async () => {
    const { verikit, provider } = setup();
    expect(
      await verikit.receive({
        id: randomUUID(),
        event: { type: 'ussd-verification', phoneNumber: '+2348011111111', status: 'success' },
      }),
    ).toEqual({ outcome: 'no-active-flow' });
    const { id } = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    await provider.completeUssd(phone);
    const version = (await verikit.get(id)).version;
    expect(
      (
        await verikit.receive({
          id: randomUUID(),
          event: { type: 'ussd-verification', phoneNumber: phone, status: 'failed' },
        })
      ).outcome,
    ).toBe('no-active-flow');
    expect((await verikit.get(id)).version).toBe(version);
  });

  it('expires and can be cancelled', async () => {
    const { verikit, clock } = setup();
    const a = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    expect((await verikit.cancel(a.id)).status).toBe('cancelled');
    const b = await verikit.start({ kind: 'ussd', phoneNumber: '+2348012345679' });
    clock.advance(10 * 60_000);
    expect(await verikit.get(b.id)).toMatchObject({ status: 'expired', allowed: ['restart', 'cancel'] });
  });
});

describe('messages', () => {
  it('sends SMS and WhatsApp through the provider', async () => {
    const { verikit, provider } = setup({ defaultSender: 'Verikit' });
    expect(await verikit.sendSms({ to: phone, message: 'Welcome' })).toMatchObject({
      provider: 'test',
      messageId: expect.any(String),
    });
    expect(await verikit.sendWhatsApp({ phoneNumber: phone, message: 'Welcome' })).toMatchObject({ provider: 'test' });
    expect(provider.outbox.map((message) => message.channel)).toEqual(['sms', 'whatsapp']);
    expect(provider.callsOf('sms.send')[0]!.input.from).toBe('Verikit');
  });

  it('an SMS naming no sender, with no engine defaultSender, takes the provider default sender', async () => {
    const { verikit, provider } = setup({ provider: createTestProviderV1({ defaultSender: 'Acme' }) });
    await verikit.sendSms({ to: phone, message: 'Welcome' });
    await verikit.sendSms({ from: 'Other', to: phone, message: 'Welcome' });
    expect(provider.callsOf('sms.send').map((call) => call.input.from)).toEqual(['Acme', 'Other']);
  });

  it('a provider without sms or whatsapp: a typed CapabilityError, and no call made', async () => {
    const { sms: _sms, whatsapp: _whatsapp, ...full } = createTestProviderV1();
    const provider: TestProviderV1 = full;
    const { verikit, raw } = setup({ provider, defaultSender: 'Verikit' });
    const before = raw();
    const secretText = 'Your login code is 918273';
    const smsError = await verikit.sendSms({ to: phone, message: secretText }).catch((caught: unknown) => caught);
    const whatsAppError = await verikit
      .sendWhatsApp({ phoneNumber: phone, message: secretText })
      .catch((caught: unknown) => caught);
    for (const [error, capability] of [
      [smsError, 'sms'],
      [whatsAppError, 'whatsapp'],
    ] as const) {
      expect(CapabilityError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'capability_missing', capability, isRetryable: false });
      expect((error as Error).message).toBe(`provider test does not support ${capability}`);
      expect(JSON.stringify([error, (error as Error).message, (error as Error).stack])).not.toMatch(
        /918273|2348012345678/,
      );
    }
    expect(provider.calls).toHaveLength(0);
    expect(raw()).toBe(before);
  });

  it('a provider rejection reaches the caller as the same typed error, with nothing secret in it', async () => {
    const { verikit, provider } = setup({ defaultSender: 'Verikit' });
    const secretText = 'Your login code is 918273';
    const smsRejection = new ProviderRejectedError('the service refused the message', {
      providerMessage: 'Invalid sender',
    });
    const whatsAppRejection = new ProviderRejectedError('the service refused the message', {
      providerMessage: 'Not on WhatsApp',
    });
    provider.failNext('sms.send', smsRejection);
    provider.failNext('whatsapp.send', whatsAppRejection);
    const smsError = await verikit.sendSms({ to: phone, message: secretText }).catch((caught: unknown) => caught);
    const whatsAppError = await verikit
      .sendWhatsApp({ phoneNumber: phone, message: secretText })
      .catch((caught: unknown) => caught);
    for (const [error, rejection] of [
      [smsError, smsRejection],
      [whatsAppError, whatsAppRejection],
    ] as const) {
      expect(ProviderRejectedError.isInstance(error)).toBe(true);
      expect(error).toBe(rejection);
      expect(error).toMatchObject({
        code: 'provider_rejected',
        isRetryable: false,
        providerMessage: rejection.providerMessage,
      });
      expect(
        JSON.stringify([
          error,
          (error as Error).message,
          (error as Error).stack,
          (error as ProviderRejectedError).providerMessage,
        ]),
      ).not.toMatch(/918273|2348012345678/);
    }
    // Each was tried once: a rejection is final, never retried.
    expect(provider.callsOf('sms.send')).toHaveLength(1);
    expect(provider.callsOf('whatsapp.send')).toHaveLength(1);
    expect(provider.outbox).toHaveLength(0);
  });
});

describe('subscribe', () => {
  it('receives every committed view, in order, until unsubscribed', async () => {
    const { verikit } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const seen: string[] = [];
    const unsubscribe = verikit.subscribe(id, (view) => seen.push(`${view.version}:${view.status}`));
    await verikit.send(id, { type: 'submit-code', code: '000000' });
    unsubscribe();
    await verikit.send(id, { type: 'submit-code', code: '000001' });
    expect(seen).toEqual(['3:checking', '4:awaiting-code']);
  });
});
