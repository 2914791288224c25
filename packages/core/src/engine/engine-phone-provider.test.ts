import { describe, expect, it } from 'vitest';
import { EventNotAllowedError } from '../errors/index.js';
import { setup } from './engine.fixtures.js';
import { createTestProviderV1 } from '@verikit/testing';

const phone = '+2348012345678';

describe('a resend names the send it repeats', () => {
  it('passes the previous requestId as resendOf, keeps the new one, and the check uses the new one', async () => {
    const { verikit, provider, clock, keyv } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(provider.callsOf('phone.send')[0]!.input).not.toHaveProperty('resendOf');
    clock.advance(30_000);
    await verikit.send(id, { type: 'resend' });
    expect(provider.callsOf('phone.send')[1]!.input).toEqual({ phoneNumber: phone, channel: 'sms', resendOf: 'req-1' });
    expect(((await keyv.get(`flow:${id}`)) as { context: Record<string, unknown> }).context.requestId).toBe('req-2');
    await verikit.send(id, { type: 'submit-code', code: '123456' });
    expect(provider.callsOf('phone.check').map((call) => call.input.requestId)).toEqual(['req-2']);
  });

  it('a resend from expired names the expired send; a resend after a first send that failed names none', async () => {
    const { verikit, provider, clock } = setup();
    const expiring = await verikit.start({ kind: 'phone', phoneNumber: phone });
    clock.set(expiring.expiresAt!);
    expect((await verikit.send(expiring.id, { type: 'resend' })).status).toBe('awaiting-code');
    expect(provider.callsOf('phone.send')[1]!.input.resendOf).toBe('req-1');

    provider.failNext('phone.send', new Error('refused'));
    const failed = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    expect(failed.status).toBe('send-failed');
    clock.advance(30_000);
    await verikit.send(failed.id, { type: 'resend' });
    expect(provider.callsOf('phone.send')[3]!.input).not.toHaveProperty('resendOf');
  });
});

describe("the provider's reason for a code that is not valid becomes the flow's state", () => {
  it('expired: the flow is expired (not an error), the attempt is given back, and a resend sends a new code', async () => {
    const { verikit, provider, clock } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    provider.script('phone.check', { valid: false, reason: 'expired' });
    const expired = await verikit.send(id, { type: 'submit-code', code: '123456' });
    expect(expired).toMatchObject({ status: 'expired', done: false, attemptsLeft: 5, expiresAt: clock.now() });
    expect(expired.error).toBeUndefined();
    await expect(verikit.send(id, { type: 'submit-code', code: '123456' })).rejects.toThrow(EventNotAllowedError);
    clock.advance(30_000);
    expect((await verikit.send(id, { type: 'resend' })).status).toBe('awaiting-code');
  });

  it('attempts-exhausted: the flow is locked, with no attempts left', async () => {
    const { verikit, provider } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    provider.script('phone.check', { valid: false, reason: 'attempts-exhausted' });
    const locked = await verikit.send(id, { type: 'submit-code', code: '123456' });
    expect(locked).toMatchObject({
      status: 'locked',
      done: true,
      attemptsLeft: 0,
      error: { code: 'attempts_exhausted' },
    });
  });

  it('not-pending before the flow recorded an approval: the code is spent, the flow is expired and may resend', async () => {
    const { verikit, provider } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    provider.script('phone.check', { valid: false, reason: 'not-pending' });
    expect(await verikit.send(id, { type: 'submit-code', code: '123456' })).toMatchObject({
      status: 'expired',
      attemptsLeft: 5,
    });
  });

  it('not-pending after the flow recorded an approval: the late answer changes nothing, the flow stays verified', async () => {
    const { verikit, provider, store } = setup({ policies: { effectTimeoutMs: 100 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    let answerFirst!: (result: { valid: boolean; reason: 'not-pending' }) => void;
    provider.script('phone.check', () => new Promise((resolve) => (answerFirst = resolve)));
    // The first check is unanswered by its deadline; the second approves the code.
    expect((await verikit.send(id, { type: 'submit-code', code: '123456' })).error).toMatchObject({
      code: 'outcome_unknown',
    });
    const verified = await verikit.send(id, { type: 'submit-code', code: '123456' });
    expect(verified.status).toBe('verified');
    // The first check's answer comes late: the provider no longer has a pending verification.
    answerFirst({ valid: false, reason: 'not-pending' });
    await new Promise((resolve) => setImmediate(resolve));
    // Queued behind the late answer on this flow: it runs once that answer was applied.
    await expect(verikit.cancel(id)).rejects.toThrow(EventNotAllowedError);
    const stored = await store.getFlow(id);
    expect(stored).toMatchObject({ value: 'verified', version: verified.version });
  });

  it('a late answer with a reason moves an awaiting flow the same way', async () => {
    const { verikit, provider } = setup({ policies: { effectTimeoutMs: 100 } });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    let answer!: (result: { valid: boolean; reason: 'attempts-exhausted' }) => void;
    provider.script('phone.check', () => new Promise((resolve) => (answer = resolve)));
    expect(await verikit.send(id, { type: 'submit-code', code: '000000' })).toMatchObject({
      status: 'awaiting-code',
      error: { code: 'outcome_unknown' },
    });
    const locked = new Promise((resolve) => verikit.subscribe(id, (view) => view.status === 'locked' && resolve(view)));
    answer({ valid: false, reason: 'attempts-exhausted' });
    expect(await locked).toMatchObject({ status: 'locked', attemptsLeft: 0, error: { code: 'attempts_exhausted' } });
  });

  it('a reason the engine does not know, or one beside a valid code, is ignored', async () => {
    const { verikit, provider } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    provider.script(
      'phone.check',
      { valid: false, reason: 'gone-fishing' as never },
      { valid: true, reason: 'expired' },
    );
    expect(await verikit.send(id, { type: 'submit-code', code: '000000' })).toMatchObject({
      status: 'awaiting-code',
      attemptsLeft: 4,
      error: { code: 'code_invalid' },
    });
    expect((await verikit.send(id, { type: 'submit-code', code: '123456' })).status).toBe('verified');
  });
});

describe('sentBy: which provider sent the code', () => {
  it('is kept in the stored context (for logs and proofs), never in the view; a resend by another replaces it with its name', async () => {
    const { verikit, provider, clock, keyv } = setup();
    provider.script('phone.send', { requestId: 'second~req-1', sentBy: 'second' }, { requestId: 'plain-2' });
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const context = async () =>
      ((await keyv.get(`flow:${started.id}`)) as { context: Record<string, unknown> }).context;
    expect(await context()).toMatchObject({ requestId: 'second~req-1', sentBy: 'second' });
    expect(JSON.stringify(started)).not.toContain('second');
    clock.advance(30_000);
    const resent = await verikit.send(started.id, { type: 'resend' });
    // A send that reports no sentBy is named by the engine's provider (what a proof names).
    expect(await context()).toMatchObject({ requestId: 'plain-2', sentBy: provider.name });
    expect(JSON.stringify(resent)).not.toContain('sentBy');
  });

  it("a malformed sentBy is dropped for the provider's own name, and the send still counts", async () => {
    const provider = createTestProviderV1();
    const { verikit, keyv } = setup({ provider });
    provider.script('phone.send', { requestId: 'req-x', sentBy: '<script>Evil Name</script>' });
    const started = await verikit.start({ kind: 'phone', phoneNumber: phone });
    expect(started.status).toBe('awaiting-code');
    const stored = ((await keyv.get(`flow:${started.id}`)) as { context: Record<string, unknown> }).context;
    expect(stored.sentBy).toBe(provider.name);
    expect(JSON.stringify(stored)).not.toContain('script');
  });
});

describe('provider calls that start together share their deadline (decision 1470)', () => {
  it('a call that hangs is moved on at its deadline, not before; a call of the same window that answers is kept', async () => {
    const { verikit, provider } = setup({ policies: { effectTimeoutMs: 1000 } });
    const hanging = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const answering = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    // The first check never answers and ignores its signal; the second answers at once.
    provider.script('phone.check', () => new Promise(() => {}));
    const started = performance.now();
    const [late, answered] = await Promise.all([
      verikit.send(hanging.id, { type: 'submit-code', code: '000000' }),
      verikit.send(answering.id, { type: 'submit-code', code: '000000' }),
    ]);
    const waited = performance.now() - started;
    expect(answered).toMatchObject({ status: 'awaiting-code', attemptsLeft: 4, error: { code: 'code_invalid' } });
    expect(late).toMatchObject({ status: 'awaiting-code', attemptsLeft: 5, error: { code: 'outcome_unknown' } });
    expect(waited).toBeGreaterThanOrEqual(1000);
  });

  it('aborts the signal of every call still running at the deadline, with the deadline as the reason', async () => {
    const { verikit, provider } = setup({ policies: { effectTimeoutMs: 1000 } });
    const flows = await Promise.all(
      ['+2348012345671', '+2348012345672', '+2348012345673'].map((phoneNumber) =>
        verikit.start({ kind: 'phone', phoneNumber }),
      ),
    );
    const signals: AbortSignal[] = [];
    const operations = provider.phone!;
    const check = operations.check;
    operations.check = (input, context) => {
      signals.push(context.signal);
      return check(input, context);
    };
    // The test double honours the call's signal while it waits out its latency.
    provider.setLatency(60_000);
    const views = await Promise.all(flows.map(({ id }) => verikit.send(id, { type: 'submit-code', code: '000000' })));
    for (const view of views) expect(view.error).toMatchObject({ code: 'outcome_unknown' });
    expect(signals).toHaveLength(3);
    for (const signal of signals) {
      expect(signal.aborted).toBe(true);
      expect((signal.reason as Error).message).toBe('the provider did not answer before the deadline');
    }
    provider.setLatency(0);
    expect((await verikit.send(flows[0]!.id, { type: 'submit-code', code: '000000' })).error).toMatchObject({
      code: 'code_invalid',
    });
  });
});
