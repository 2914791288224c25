import { describe, expect, it } from 'vitest';
import { IdempotencyKeyReusedError } from '../errors/idempotency-key-reused-error.js';
import { isReplayed } from './idempotent-call.js';
import { setup } from './engine.fixtures.js';

const phone = '+2348012345678';

describe('every call that sends takes an idempotency key, as Stripe does (decision 1660)', () => {
  it('sendSms: the same key and parameters send once and replay the answer; other parameters are an error naming them', async () => {
    const { verikit, provider, raw } = setup();
    const first = await verikit.sendSms({ from: 'Shop', to: phone, message: 'Welcome' }, { idempotencyKey: 'k-one' });
    const again = await verikit.sendSms({ from: 'Shop', to: phone, message: 'Welcome' }, { idempotencyKey: 'k-one' });
    expect(provider.callsOf('sms.send')).toHaveLength(1);
    expect(again).toEqual(first);
    expect([isReplayed(first), isReplayed(again)]).toEqual([false, true]);
    const error = await verikit
      .sendSms({ from: 'Shop', to: '+2348012345679', message: 'Hello' }, { idempotencyKey: 'k-one' })
      .catch((caught: unknown) => caught);
    expect(IdempotencyKeyReusedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'idempotency_key_reused',
      field: 'idempotencyKey',
      mismatch: ['message', 'to'],
    });
    expect((error as Error).message).toBe(
      'this idempotency key was first used with another message, to: use a new key for a different request',
    );
    expect(provider.callsOf('sms.send')).toHaveLength(1);
    // Another key is another send; no key, every call is a send.
    await verikit.sendSms({ from: 'Shop', to: phone, message: 'Welcome' }, { idempotencyKey: 'k-two' });
    await verikit.sendSms({ from: 'Shop', to: phone, message: 'Welcome' });
    expect(provider.callsOf('sms.send')).toHaveLength(3);
    // Keyed hashes only: neither the key, nor the number, nor the text is stored.
    expect(raw()).not.toMatch(/k-one|8012345678|Welcome/);
  });

  it('sendWhatsApp: the same, and a key used for an SMS is another call (the mismatch names `call`)', async () => {
    const { verikit, provider } = setup();
    const first = await verikit.sendWhatsApp({ to: phone, message: 'Welcome' }, { idempotencyKey: 'wa-1' });
    const again = await verikit.sendWhatsApp({ to: phone, message: 'Welcome' }, { idempotencyKey: 'wa-1' });
    expect(again).toEqual(first);
    expect(isReplayed(again)).toBe(true);
    expect(provider.callsOf('whatsapp.send')).toHaveLength(1);
    await expect(
      verikit.sendWhatsApp({ to: phone, message: 'Other' }, { idempotencyKey: 'wa-1' }),
    ).rejects.toMatchObject({ mismatch: ['message'] });
    await expect(
      verikit.sendSms({ from: 'Shop', to: phone, message: 'Welcome' }, { idempotencyKey: 'wa-1' }),
    ).rejects.toMatchObject({ mismatch: ['call', 'from'] });
    expect(provider.callsOf('sms.send')).toHaveLength(0);
  });

  it('a send that failed is replayed as the same typed error, never sent again under its key', async () => {
    const { verikit, provider } = setup();
    provider.failNext('sms.send', new Error('refused by the operator'));
    await expect(verikit.sendSms({ from: 'Shop', to: phone, message: 'Hi' }, { idempotencyKey: 'f' })).rejects.toThrow(
      'refused by the operator',
    );
    const replayed = await verikit
      .sendSms({ from: 'Shop', to: phone, message: 'Hi' }, { idempotencyKey: 'f' })
      .catch((caught: unknown) => caught);
    expect(isReplayed(replayed)).toBe(true);
    expect(provider.callsOf('sms.send')).toHaveLength(1);
  });

  it('start: a repeat replays the flow; the same key for another number or kind is an error naming it', async () => {
    const { verikit, provider } = setup();
    const first = await verikit.start({ kind: 'phone', phoneNumber: phone }, { idempotencyKey: 's' });
    const again = await verikit.start({ kind: 'phone', phoneNumber: phone }, { idempotencyKey: 's' });
    expect(again.id).toBe(first.id);
    expect([isReplayed(first), isReplayed(again)]).toEqual([false, true]);
    await expect(verikit.start({ kind: 'ussd', phoneNumber: phone }, { idempotencyKey: 's' })).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      mismatch: ['kind'],
    });
    expect(provider.callsOf('phone.send')).toHaveLength(1);
  });

  it('resend: a repeat sends nothing and answers the flow as it is; the key on another flow is an error', async () => {
    const { verikit, provider, clock } = setup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const other = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    clock.advance(31_000);
    const first = await verikit.send(flow.id, { type: 'resend' }, { idempotencyKey: 'r' });
    const again = await verikit.send(flow.id, { type: 'resend' }, { idempotencyKey: 'r' });
    expect(provider.callsOf('phone.send')).toHaveLength(3);
    expect(again).toMatchObject({ id: flow.id, version: first.version });
    expect([isReplayed(first), isReplayed(again)]).toEqual([false, true]);
    await expect(verikit.send(other.id, { type: 'resend' }, { idempotencyKey: 'r' })).rejects.toMatchObject({
      mismatch: ['flowId'],
    });
    await expect(
      verikit.send(flow.id, { type: 'submit-code', code: '123456' }, { idempotencyKey: 'c' }),
    ).rejects.toMatchObject({ code: 'invalid_input' });
    expect(provider.callsOf('phone.send')).toHaveLength(3);
  });

  it('two calls at once with one key: one send, and both get its answer', async () => {
    const { verikit, provider } = setup();
    provider.setLatency(200);
    const input = { from: 'Shop', to: phone, message: 'Welcome' };
    const answers = await Promise.all([
      verikit.sendSms(input, { idempotencyKey: 'race' }),
      verikit.sendSms(input, { idempotencyKey: 'race' }),
    ]);
    expect(provider.callsOf('sms.send')).toHaveLength(1);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers.filter(isReplayed)).toHaveLength(1);
  });

  it('refuses a malformed key naming it', async () => {
    const { verikit } = setup();
    await expect(
      verikit.sendSms({ from: 'Shop', to: phone, message: 'x' }, { idempotencyKey: '' }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      issues: [{ field: 'options.idempotencyKey', message: 'must not be empty' }],
    });
  });
});
