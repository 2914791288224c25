import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CapabilityError, InvalidInputError, RateLimitedError } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { setup } from './engine.fixtures.js';

// A phone plan's inbound step (decision 1695), on the engine with a manual clock: the user proves the number by
// sending the flow's reference from it; nothing is sent until the user asks or the plan's escalation is due.

const user = '+2348031234567';
const other = '+2348037654321';
const smsNumber = '+15005550006';
const whatsappNumber = '+14155238886';

function inboundSetup(options: Parameters<typeof setup>[0] = {}) {
  const provider = createTestProviderV1({
    channels: ['sms', 'whatsapp'],
    inboundNumbers: { sms: smsNumber, whatsapp: whatsappNumber },
  });
  const env = setup({ provider, timers: { pollMs: 0 }, ...options });
  /** A message a provider's verified webhook reported, delivered once under its own id. */
  const message = (from: string, text: string, channel: 'sms' | 'whatsapp' = 'whatsapp', id = randomUUID()) =>
    env.verikit.receive({
      id,
      event: { type: 'inbound-message', channel, from, to: channel === 'sms' ? smsNumber : whatsappNumber, text },
    });
  return { ...env, message };
}

describe('a phone plan with an inbound step', () => {
  it('starts awaiting a message, shows the reference and where to send it, and sends nothing', async () => {
    const { verikit, provider, raw, logs } = inboundSetup();
    const flow = await verikit.start({
      kind: 'phone',
      phoneNumber: user,
      channels: ['whatsapp-inbound', 'sms-inbound', 'sms'],
      escalateAfterMs: 60_000,
    });
    expect(flow).toMatchObject({ status: 'awaiting-message', channels: ['sms'], next: { channel: 'sms' } });
    expect(flow.allowed).toEqual(['resend', 'cancel']);
    const reference = flow.inbound!.reference;
    expect(reference).toMatch(/^\d{8}$/);
    expect(flow.inbound!.ways).toEqual([
      {
        channel: 'whatsapp',
        to: whatsappNumber,
        text: reference,
        link: `https://wa.me/${whatsappNumber.slice(1)}?text=${reference}`,
      },
      { channel: 'sms', to: smsNumber, text: reference, link: `sms:${smsNumber}?body=${reference}` },
    ]);
    expect(provider.outbox).toHaveLength(0);
    // Never stored and never logged: only its keyed hash and the nonce the engine makes it from.
    expect(raw()).not.toContain(reference);
    expect(JSON.stringify(logs)).not.toContain(reference);
    // The same view when read again, on any call.
    expect((await verikit.get(flow.id)).inbound?.reference).toBe(reference);
  });

  it('is verified by a message carrying the reference from the number, once, with the inbound method', async () => {
    const { verikit, provider, message, raw, logs } = inboundSetup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: user, channels: ['whatsapp-inbound', 'sms'] });
    const reference = flow.inbound!.reference;
    const text = `Verify my number: ${reference.slice(0, 4)} ${reference.slice(4)}`;
    const received = await message(user, text);
    expect(received).toMatchObject({ outcome: 'applied', flowId: flow.id, view: { status: 'verified' } });
    expect(received.view!.inbound).toBeUndefined();
    expect(provider.outbox).toHaveLength(0);
    const proof = await verikit.issueProof(flow.id);
    expect(await verikit.redeemProof(proof.token, { phoneNumber: user })).toMatchObject({
      phoneNumber: user,
      method: 'whatsapp-inbound',
    });
    // A second message with the same reference finds the flow done.
    expect(await message(user, reference)).toMatchObject({ outcome: 'no-active-flow' });
    expect(raw()).not.toContain(reference);
    expect(JSON.stringify(logs)).not.toContain(reference);
  });

  it('refuses an sms-inbound proof unless the app names the method, unused (decision 1800)', async () => {
    const { verikit, message } = inboundSetup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: user, channels: ['sms-inbound', 'sms'] });
    await message(user, flow.inbound!.reference, 'sms');
    const proof = await verikit.issueProof(flow.id);
    await expect(verikit.redeemProof(proof.token, { phoneNumber: user })).rejects.toMatchObject({
      reason: 'method',
      method: 'sms-inbound',
    });
    expect(
      await verikit.redeemProof(proof.token, { phoneNumber: user }, { methods: ['phone', 'sms-inbound'] }),
    ).toMatchObject({ method: 'sms-inbound' });
  });

  it('falls back to an outbound code when the escalation is due, and the reference still verifies after', async () => {
    const { verikit, provider, clock, message } = inboundSetup();
    const flow = await verikit.start({
      kind: 'phone',
      phoneNumber: user,
      channels: ['whatsapp-inbound', 'sms'],
      escalateAfterMs: 45_000,
    });
    clock.advance(44_999);
    expect(await verikit.runDueTimers()).toBe(0);
    expect(provider.outbox).toHaveLength(0);
    clock.advance(1);
    expect(await verikit.runDueTimers()).toBe(1);
    const after = await verikit.get(flow.id);
    expect(after).toMatchObject({ status: 'awaiting-code', channel: 'sms', channelsLeft: [] });
    expect(provider.outbox.map((sent) => sent.channel)).toEqual(['sms']);
    // A message that was late still proves the number: no code needed.
    expect(await message(user, after.inbound!.reference)).toMatchObject({ view: { status: 'verified' } });
  });

  it('sends a code when the user asks for one instead (resend), on the plan’s first channel', async () => {
    const { verikit, provider } = inboundSetup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: user, channels: ['whatsapp-inbound', 'sms'] });
    const asked = await verikit.send(flow.id, { type: 'resend' });
    expect(asked).toMatchObject({ status: 'awaiting-code', channel: 'sms' });
    expect(provider.outbox).toHaveLength(1);
    expect(await verikit.send(flow.id, { type: 'submit-code', code: '123456' })).toMatchObject({
      status: 'verified',
    });
    const proof = await verikit.issueProof(flow.id);
    expect(await verikit.redeemProof(proof.token, { phoneNumber: user })).toMatchObject({ method: 'phone' });
  });

  it('expires with its reference when nobody sends it and the plan has nothing to send', async () => {
    const { verikit, clock, message } = inboundSetup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: user, channels: ['whatsapp-inbound'] });
    expect(flow.allowed).toEqual(['cancel']);
    expect(flow.next).toBeUndefined();
    const reference = flow.inbound!.reference;
    clock.advance(10 * 60_000);
    const expired = await verikit.get(flow.id);
    expect(expired.status).toBe('expired');
    expect(expired.inbound).toBeUndefined();
    expect(await message(user, reference)).toMatchObject({ outcome: 'no-active-flow' });
  });

  it('a message from another number, on another channel, or to another number verifies nothing', async () => {
    const { verikit, message } = inboundSetup();
    const flow = await verikit.start({ kind: 'phone', phoneNumber: user, channels: ['whatsapp-inbound', 'sms'] });
    const reference = flow.inbound!.reference;
    expect(await message(other, reference)).toMatchObject({ outcome: 'no-active-flow' });
    // Not a channel of the step.
    expect(await message(user, reference, 'sms')).toMatchObject({ outcome: 'no-active-flow' });
    const elsewhere = await verikit.receive({
      id: randomUUID(),
      event: { type: 'inbound-message', channel: 'whatsapp', from: user, to: '+14155550000', text: reference },
    });
    expect(elsewhere).toMatchObject({ outcome: 'no-active-flow' });
    expect((await verikit.get(flow.id)).status).toBe('awaiting-message');
  });

  it('wrong references are counted per number; a message without one counts nothing', async () => {
    const { verikit, message } = inboundSetup({
      guard: { wrongReferencesPerNumber: { points: 3, windowMs: 600_000 } },
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: user, channels: ['whatsapp-inbound', 'sms'] });
    const reference = flow.inbound!.reference;
    for (let hello = 0; hello < 5; hello += 1) await message(user, 'hello, STOP');
    const wrong = String((Number(reference) + 1) % 1e8).padStart(8, '0');
    for (let guess = 0; guess < 3; guess += 1)
      expect(await message(user, wrong)).toMatchObject({ outcome: 'no-active-flow' });
    // The limit is spent: even the right reference is refused now, so a guesser is stopped.
    await expect(message(user, reference)).rejects.toSatisfy(RateLimitedError.isInstance);
    expect((await verikit.get(flow.id)).status).toBe('awaiting-message');
  });

  it('refuses a plan whose inbound step comes after a channel, and a provider that receives no messages', async () => {
    const { verikit } = inboundSetup();
    await expect(
      verikit.start({ kind: 'phone', phoneNumber: user, channels: ['sms', 'whatsapp-inbound'] }),
    ).rejects.toSatisfy(InvalidInputError.isInstance);
    const plain = setup({ provider: createTestProviderV1() });
    await expect(
      plain.verikit.start({ kind: 'phone', phoneNumber: user, channels: ['sms-inbound', 'sms'] }),
    ).rejects.toSatisfy(CapabilityError.isInstance);
  });

  it('reserves the reference of a plan with an inbound step at start, and nothing for a plan without one', async () => {
    const { verikit, store } = inboundSetup();
    const claimed: string[] = [];
    const claim = store.claim.bind(store);
    store.claim = (...args: Parameters<typeof claim>) => {
      claimed.push(args[0]);
      return claim(...args);
    };
    await verikit.start({ kind: 'phone', phoneNumber: user, channels: ['whatsapp-inbound', 'sms'] });
    await verikit.start({ kind: 'phone', phoneNumber: other, channels: ['sms'] });
    expect(claimed.filter((key) => key.startsWith('inbound-reserved:'))).toHaveLength(1);
  });

  it('costs no money at start: the budget is charged only when a code is sent', async () => {
    const { verikit, message } = inboundSetup({
      guard: {
        prices: { currency: 'NGN', prices: [{ channel: 'sms', price: 5 }] },
        budget: { perHour: 5 },
      },
    });
    const flows = [];
    for (let index = 0; index < 3; index += 1)
      flows.push(
        await verikit.start({
          kind: 'phone',
          phoneNumber: `+23480312345${60 + index}`,
          channels: ['whatsapp-inbound', 'sms'],
        }),
      );
    for (const flow of flows) await message(`+23480312345${60 + flows.indexOf(flow)}`, flow.inbound!.reference);
    expect(verikit.costs()?.total).toBe(0);
  });
});
