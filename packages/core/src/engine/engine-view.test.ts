import { describe, expect, it } from 'vitest';
import { ProviderRejectedError, ProviderUnavailableError, VerikitError } from '@verikit/provider';
import type { FlowView } from '../flows/view.js';
import { setup } from './engine.fixtures.js';

const phone = '+2348012345678';

/** Collects every view the flow publishes, in order. */
function recordViews(verikit: ReturnType<typeof setup>['verikit'], flowId: string): FlowView[] {
  const views: FlowView[] = [];
  verikit.subscribe(flowId, (view) => views.push(view));
  return views;
}

/** A provider error that says whether a message may have gone out, as a provider that knows it reports. */
function unavailable(maybeSent: boolean): ProviderUnavailableError {
  return new ProviderUnavailableError('the service is unavailable', { requestSent: true, maybeSent });
}

describe('attemptsLeft never goes up (a check shows the attempts as before it)', () => {
  it('4 → checking 4 → verified 4', async () => {
    const { verikit, provider } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect((await verikit.send(id, { type: 'submit-code', code: '000000' })).attemptsLeft).toBe(4);
    const views = recordViews(verikit, id);
    await verikit.send(id, { type: 'submit-code', code: provider.lastCode(phone)! });
    expect(views.map((view) => [view.status, view.attemptsLeft])).toEqual([
      ['checking', 4],
      ['verified', 4],
    ]);
  });

  it('4 → checking 4 → wrong 3, and to 0 on the last, never back', async () => {
    const { verikit } = setup({ policies: { maxAttempts: 5 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    await verikit.send(id, { type: 'submit-code', code: '000000' });
    const views = recordViews(verikit, id);
    await verikit.send(id, { type: 'submit-code', code: '000001' });
    expect(views.map((view) => [view.status, view.attemptsLeft, view.error?.code])).toEqual([
      ['checking', 4, undefined],
      ['awaiting-code', 3, 'code_invalid'],
    ]);
    for (const code of ['000002', '000003', '000004']) await verikit.send(id, { type: 'submit-code', code });
    const attempts = views.map((view) => view.attemptsLeft!);
    expect(attempts.at(-1)).toBe(0);
    expect(views.at(-1)?.status).toBe('locked');
    expect(attempts).toEqual([...attempts].sort((a, b) => b - a));
  });

  it('a check the provider could not make leaves the attempts as they were, at every step', async () => {
    const { verikit, provider } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const views = recordViews(verikit, id);
    provider.failNext('phone.check', new ProviderUnavailableError('down'));
    await verikit.send(id, { type: 'submit-code', code: '000000' });
    expect(views.map((view) => view.attemptsLeft)).toEqual([5, 5]);
  });

  it('a refused check counts when it is refused, not before', async () => {
    const { verikit, provider } = setup({ policies: { maxAttempts: 1 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const views = recordViews(verikit, id);
    provider.failNext('phone.check', new ProviderRejectedError('refused'));
    await verikit.send(id, { type: 'submit-code', code: '000000' });
    expect(views.map((view) => [view.status, view.attemptsLeft, view.error?.code])).toEqual([
      ['checking', 1, undefined],
      ['locked', 0, 'provider_rejected'],
    ]);
  });
});

describe('the view carries what a UI needs to count down and explain', () => {
  it('serverTime is the engine clock when the view was made', async () => {
    const { verikit, clock } = setup();
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(started.serverTime).toBe(clock.now());
    clock.advance(12_345);
    expect((await verikit.get(started.id)).serverTime).toBe(clock.now());
  });

  it('maxAttempts and sendsLeft (maxSendsPerFlow minus the sends so far); sendsLeft only while the flow can change', async () => {
    const { verikit, clock, provider } = setup({ policies: { maxSendsPerFlow: 3, maxAttempts: 4 } });
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(started).toMatchObject({ maxAttempts: 4, attemptsLeft: 4, sendsLeft: 2 });
    clock.advance(30_000);
    expect(await verikit.send(started.id, { type: 'resend' })).toMatchObject({ sendsLeft: 1 });
    clock.advance(60_000);
    const last = await verikit.send(started.id, { type: 'resend' });
    expect(last).toMatchObject({ sendsLeft: 0 });
    // No resend can ever come: no countdown to show.
    expect(last.resendAvailableAt).toBeUndefined();
    const verified = await verikit.send(started.id, { type: 'submit-code', code: provider.lastCode(phone)! });
    expect(verified.maxAttempts).toBe(4);
    expect(verified.sendsLeft).toBeUndefined();
  });

  it('a USSD flow has sendsLeft but no attempts', async () => {
    const { verikit } = setup({ policies: { maxSendsPerFlow: 2 } });
    const view = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    expect(view.sendsLeft).toBe(1);
    expect(view.maxAttempts).toBeUndefined();
    expect(view.attemptsLeft).toBeUndefined();
  });

  it('errors carry a stable messageId; a code this release does not know gets verikit.error.unknown', async () => {
    const { verikit, provider } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect((await verikit.send(id, { type: 'submit-code', code: '000000' })).error).toEqual({
      code: 'code_invalid',
      message: 'the code is not correct',
      messageId: 'verikit.error.code_invalid',
    });
    provider.failNext('phone.send', new VerikitError('carrier_blocked', 'the carrier blocked the number'));
    const failed = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    expect(failed.error).toMatchObject({ code: 'carrier_blocked', messageId: 'verikit.error.unknown' });
  });

  it('no resendAvailableAt while a USSD dial is awaited (neither resend nor restart is allowed); it returns once restart can come', async () => {
    const { verikit, provider, clock } = setup();
    const awaiting = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    expect(awaiting.status).toBe('awaiting-dial');
    expect(awaiting.resendAvailableAt).toBeUndefined();
    await provider.completeUssd(phone, 'failed');
    const failed = await verikit.get(awaiting.id);
    expect(failed).toMatchObject({ status: 'failed', resendAvailableAt: clock.now() + 30_000 });
  });

  it('no resendAvailableAt while a code is being checked; it is there while the code is awaited', async () => {
    const { verikit } = setup();
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(started.resendAvailableAt).toBeDefined();
    const views = recordViews(verikit, started.id);
    await verikit.send(started.id, { type: 'submit-code', code: '000000' });
    expect(views.map((view) => [view.status, view.resendAvailableAt])).toEqual([
      ['checking', undefined],
      ['awaiting-code', started.resendAvailableAt],
    ]);
  });
});

describe('a send that never left blocks no retry', () => {
  it('a first send the provider answered as failed (503): resend at once, still counted', async () => {
    const { verikit, provider } = setup({ policies: { maxSendsPerFlow: 3 } });
    provider.failNext(
      'phone.send',
      new ProviderUnavailableError('the service answered 503', { requestSent: true, maybeSent: false }),
    );
    const failed = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(failed).toMatchObject({ status: 'send-failed', allowed: ['resend', 'cancel'], sendsLeft: 2 });
    expect(failed.resendAvailableAt).toBeUndefined();
    const resent = await verikit.send(failed.id, { type: 'resend' });
    // The second send's cooldown grows as for any second send: the failed one counted.
    expect(resent).toMatchObject({
      status: 'awaiting-code',
      sendsLeft: 1,
      resendAvailableAt: resent.serverTime + 60_000,
    });
  });

  it('a later send failing as provider_unavailable, not known to have stayed home, keeps its cooldown', async () => {
    const { verikit, provider, clock } = setup();
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    clock.advance(30_000);
    provider.failNext('phone.send', new ProviderUnavailableError('the service answered 503'));
    const failed = await verikit.send(started.id, { type: 'resend' });
    expect(failed).toMatchObject({
      status: 'send-failed',
      allowed: ['cancel'],
      resendAvailableAt: clock.now() + 60_000,
    });
  });

  it('any send whose error says nothing was sent starts no cooldown; one that may have sent keeps it, even on the first send', async () => {
    const { verikit, provider, clock } = setup();
    provider.failNext('phone.send', unavailable(true));
    const sent = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(sent).toMatchObject({ status: 'send-failed', allowed: ['cancel'], resendAvailableAt: clock.now() + 30_000 });
    clock.advance(30_000);
    provider.failNext('phone.send', unavailable(false));
    const stayed = await verikit.send(sent.id, { type: 'resend' });
    expect(stayed).toMatchObject({ status: 'send-failed', allowed: ['resend', 'cancel'] });
    expect(stayed.resendAvailableAt).toBeUndefined();
  });

  it('a first send whose deadline passed (outcome unknown) keeps its cooldown: the code may arrive', async () => {
    const { verikit, provider, clock } = setup({ policies: { effectTimeoutMs: 100 } });
    provider.script('phone.send', () => new Promise(() => {}));
    const unknown = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(unknown).toMatchObject({
      status: 'send-failed',
      error: { code: 'outcome_unknown' },
      allowed: ['cancel'],
      resendAvailableAt: clock.now() + 30_000,
    });
  });

  it('USSD and identity too: a first initiation or OTP send that never left may be retried at once', async () => {
    const { verikit, provider } = setup();
    provider.failNext(
      'ussd.initiate',
      new ProviderUnavailableError('the connection was refused', { requestSent: false }),
    );
    const ussd = await verikit.start({ kind: 'ussd', phoneNumber: phone });
    expect(ussd).toMatchObject({ status: 'failed', allowed: ['restart', 'cancel'] });
    expect((await verikit.send(ussd.id, { type: 'restart' })).status).toBe('awaiting-dial');
    provider.failNext(
      'identity.sendOtp',
      new ProviderUnavailableError('the connection was refused', { requestSent: false }),
    );
    const identity = await verikit.start({ kind: 'identity', idType: 'nin', number: '12345678901' });
    expect(identity).toMatchObject({ status: 'send-failed', allowed: ['resend', 'cancel'] });
    expect((await verikit.send(identity.id, { type: 'resend' })).status).toBe('awaiting-code');
  });
});
