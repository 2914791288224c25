import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '@verikit/provider';
import { createVerikit } from '../engine/create-verikit.js';
import { setup, testSecret } from '../engine/engine.fixtures.js';
import { createTestProviderV1, expectNoSecrets } from '@verikit/testing';
import { FlowNotVerifiedError } from '../errors/flow-not-verified-error.js';
import { ProofRejectedError, type ProofRejection } from '../errors/proof-rejected-error.js';
import { KeyvFlowStore, createMemoryKeyv } from '../store/keyv-flow-store.js';

const phone = '+2348012345678';
const otherPhone = '+2348012345679';
const bvn = '12345678901';

async function verifiedPhoneFlow(env: ReturnType<typeof setup>, phoneNumber = phone) {
  const { id } = await env.verikit.start({ kind: 'phone', phoneNumber });
  const view = await env.verikit.send(id, { type: 'submit-code', code: env.provider.lastCode(phoneNumber)! });
  expect(view.status).toBe('verified');
  return view;
}

async function verifiedIdentityFlow(env: ReturnType<typeof setup>) {
  const { id } = await env.verikit.start({ kind: 'identity', idType: 'bvn', number: bvn });
  const view = await env.verikit.send(id, { type: 'submit-code', code: env.provider.lastCode('+2348000000000')! });
  expect(view.status).toBe('verified');
  return view;
}

/** The rejection's reason, or the error itself when it is no rejection. */
async function rejection(promise: Promise<unknown>): Promise<ProofRejection | unknown> {
  const error = await promise.then(
    () => 'accepted',
    (caught: unknown) => caught,
  );
  return ProofRejectedError.isInstance(error) ? error.reason : error;
}

describe('verikit.verification', () => {
  it('names the full phone number, when, and the provider that delivered the code', async () => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    expect(await env.verikit.verification(view.id)).toEqual({
      flowId: view.id,
      kind: 'phone',
      method: 'phone',
      phoneNumber: phone,
      verifiedAt: env.clock.now(),
      provider: 'test',
    });
  });

  it('names a USSD flow by its full number, once the dial is reported', async () => {
    const env = setup();
    const { id } = await env.verikit.start({ kind: 'ussd', phoneNumber: phone });
    env.clock.advance(5000);
    await env.provider.completeUssd(phone);
    expect(await env.verikit.verification(id)).toEqual({
      flowId: id,
      kind: 'ussd',
      method: 'ussd',
      phoneNumber: phone,
      verifiedAt: env.clock.now(),
      provider: 'test',
    });
  });

  it('names an identity flow by type and keyed hash, never the number', async () => {
    const env = setup();
    const view = await verifiedIdentityFlow(env);
    const verification = await env.verikit.verification(view.id);
    expect(verification).toMatchObject({ flowId: view.id, kind: 'identity', idType: 'bvn', provider: 'test' });
    expect(verification.numberHash).toMatch(/^[0-9a-f]{32}$/);
    expectNoSecrets(verification, [bvn]);
  });

  it('refuses a flow that is not verified (409 flow_not_verified), a malformed id and an unknown flow', async () => {
    const env = setup();
    const { id } = await env.verikit.start({ kind: 'phone', phoneNumber: phone });
    const error = await env.verikit.verification(id).catch((caught: unknown) => caught);
    expect(FlowNotVerifiedError.isInstance(error) && [error.code, error.status, error.field]).toEqual([
      'flow_not_verified',
      'awaiting-code',
      'flowId',
    ]);
    await expect(env.verikit.issueProof(id)).rejects.toSatisfy(FlowNotVerifiedError.isInstance);
    await expect(env.verikit.verification('../etc')).rejects.toSatisfy(
      (caught: unknown) => InvalidInputError.isInstance(caught) && caught.field === 'flowId',
    );
    await expect(env.verikit.verification('A'.repeat(22))).rejects.toMatchObject({ code: 'flow_not_found' });
  });
});

describe('proofs', () => {
  it('a phone proof is accepted for its number, once', async () => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    const proof = await env.verikit.issueProof(view.id);
    expect(proof.expiresAt).toBe(env.clock.now() + 5 * 60_000);
    expect(await env.verikit.redeemProof(proof.token, { phoneNumber: phone })).toEqual(
      await env.verikit.verification(view.id),
    );
    expect(await rejection(env.verikit.redeemProof(proof.token, { phoneNumber: phone }))).toBe('used');
  });

  it('is refused for another number, and stays usable for the right one', async () => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    const { token } = await env.verikit.issueProof(view.id);
    expect(await rejection(env.verikit.redeemProof(token, { phoneNumber: otherPhone }))).toBe('mismatch');
    expect(await rejection(env.verikit.redeemProof(token, { idType: 'bvn', number: bvn }))).toBe('mismatch');
    expect((await env.verikit.redeemProof(token, { phoneNumber: phone })).phoneNumber).toBe(phone);
  });

  it('is refused at and after its expiry (engine clock), accepted just before', async () => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    const late = await env.verikit.issueProof(view.id, { ttlMs: 60_000 });
    const onTime = await env.verikit.issueProof(view.id, { ttlMs: 60_000 });
    env.clock.set(onTime.expiresAt - 1);
    expect((await env.verikit.redeemProof(onTime.token, { phoneNumber: phone })).flowId).toBe(view.id);
    env.clock.set(late.expiresAt);
    expect(await rejection(env.verikit.redeemProof(late.token, { phoneNumber: phone }))).toBe('expired');
  });

  it('an identity proof is accepted for its type and number, refused for another number or the other type', async () => {
    const env = setup();
    const view = await verifiedIdentityFlow(env);
    const { token } = await env.verikit.issueProof(view.id);
    expect(await rejection(env.verikit.redeemProof(token, { idType: 'bvn', number: '12345678902' }))).toBe('mismatch');
    expect(await rejection(env.verikit.redeemProof(token, { idType: 'nin', number: bvn }))).toBe('mismatch');
    expect(await rejection(env.verikit.redeemProof(token, { phoneNumber: phone }))).toBe('mismatch');
    const verification = await env.verikit.redeemProof(token, { idType: 'bvn', number: bvn });
    expect(verification).toEqual(await env.verikit.verification(view.id));
    expect(await rejection(env.verikit.redeemProof(token, { idType: 'bvn', number: bvn }))).toBe('used');
  });

  it('is accepted once across engines sharing a store, even when redeemed in parallel', async () => {
    const keyv = createMemoryKeyv();
    const provider = createTestProviderV1();
    const engines = [0, 1].map(() => createVerikit({ provider, secret: testSecret, store: new KeyvFlowStore(keyv) }));
    const { id } = await engines[0]!.start({ kind: 'phone', phoneNumber: phone });
    await engines[0]!.send(id, { type: 'submit-code', code: provider.lastCode(phone)! });
    const { token } = await engines[1]!.issueProof(id);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        rejection(engines[index % 2]!.redeemProof(token, { phoneNumber: phone })),
      ),
    );
    expect(results.filter((result) => result === 'accepted')).toHaveLength(1);
    expect(results.filter((result) => result === 'used')).toHaveLength(9);
  });

  it('is refused when altered, or sealed with another secret', async () => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    const { token } = await env.verikit.issueProof(view.id);
    const sealed = Buffer.from(token.slice(3), 'base64url');
    for (const at of [0, 14, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[at] = altered[at]! ^ 1;
      expect(
        await rejection(env.verikit.redeemProof(`v2.${altered.toString('base64url')}`, { phoneNumber: phone })),
      ).toBe('invalid');
    }
    const stranger = createVerikit({
      provider: env.provider,
      secret: 'another-secret-0123456789-abcdefghijkl',
      store: env.store,
      clock: env.clock,
    });
    expect(await rejection(stranger.redeemProof(token, { phoneNumber: phone }))).toBe('invalid');
    // Nothing was used up by the refusals.
    expect((await env.verikit.redeemProof(token, { phoneNumber: phone })).flowId).toBe(view.id);
  });

  it('carries no number, flow id or kind in the clear, and neither the token nor a number reaches a view, a log or an error', async () => {
    const env = setup();
    const phoneView = await verifiedPhoneFlow(env);
    const identityView = await verifiedIdentityFlow(env);
    const phoneProof = await env.verikit.issueProof(phoneView.id);
    const identityProof = await env.verikit.issueProof(identityView.id);
    const payloads = [phoneProof, identityProof].map(({ token }) =>
      Buffer.from(token.slice(3), 'base64url').toString('latin1'),
    );
    expectNoSecrets(payloads, [phone, phone.slice(1), bvn, phoneView.id, identityView.id, '"kind"']);
    const rejected = await env.verikit
      .redeemProof(phoneProof.token, { phoneNumber: otherPhone })
      .catch((caught: unknown) => caught);
    await env.verikit.redeemProof(phoneProof.token, { phoneNumber: phone });
    await env.verikit.redeemProof(identityProof.token, { idType: 'bvn', number: bvn });
    const used = await env.verikit
      .redeemProof(phoneProof.token, { phoneNumber: phone })
      .catch((caught: unknown) => caught);
    const views = [await env.verikit.get(phoneView.id), await env.verikit.get(identityView.id)];
    const secrets = [phoneProof.token, identityProof.token, bvn, phone, otherPhone];
    expectNoSecrets([env.logs, views, rejected, used, JSON.stringify(rejected), JSON.stringify(used)], secrets);
    expect(env.logs.map((line) => line.message)).toEqual(
      expect.arrayContaining(['verikit.proof.issued', 'verikit.proof.redeemed', 'verikit.proof.rejected']),
    );
  });

  it('a rejection says why, safely, and is a 403-class error with the reason in its JSON', async () => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    const { token } = await env.verikit.issueProof(view.id);
    const error = await env.verikit.redeemProof(token, { phoneNumber: otherPhone }).catch((caught: unknown) => caught);
    expect(ProofRejectedError.isInstance(error) && error.toJSON()).toEqual({
      name: 'ProofRejectedError',
      code: 'proof_rejected',
      message: 'the proof is for another number',
      field: 'claim',
      isRetryable: false,
      reason: 'mismatch',
    });
  });
});

describe('proof inputs', () => {
  it.each([
    ['not a string', 42, 'token'],
    ['empty', '', 'token'],
    ['another version', 'v2.eyJ9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'token'],
    ['no signature', 'v1.eyJ9', 'token'],
    ['huge', `v1.${'A'.repeat(100_000)}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`, 'token'],
    ['spaces', 'v1.eyJ 9.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'token'],
  ])('a malformed token (%s) is invalid_input on token, never echoed', async (_name, token, field) => {
    const env = setup();
    const error = await env.verikit
      .redeemProof(token as string, { phoneNumber: phone })
      .catch((caught: unknown) => caught);
    expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    if (typeof token === 'string' && token.length > 8) expectNoSecrets(JSON.stringify(error), [token]);
  });

  it('a well-formed token that is no proof of this engine is rejected as invalid', async () => {
    const env = setup();
    expect(
      await rejection(
        env.verikit.redeemProof(`v2.${Buffer.alloc(60).toString('base64url')}`, {
          phoneNumber: phone,
        }),
      ),
    ).toBe('invalid');
  });

  it.each([
    ['no claim', undefined, 'claim'],
    ['not an object', 'x', 'claim'],
    ['a bad phone number', { phoneNumber: '08012345678' }, 'claim.phoneNumber'],
    ['an unknown type', { idType: 'passport', number: bvn }, 'claim.idType'],
    ['a short number', { idType: 'nin', number: '123' }, 'claim.number'],
    ['an extra field', { phoneNumber: phone, number: bvn }, 'claim'],
  ])('a malformed claim (%s) is invalid_input naming the field', async (_name, claim, field) => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    const { token } = await env.verikit.issueProof(view.id);
    const error = await env.verikit.redeemProof(token, claim as never).catch((caught: unknown) => caught);
    expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    expectNoSecrets(JSON.stringify(error), [bvn, '08012345678']);
    // A malformed claim uses nothing up.
    expect((await env.verikit.redeemProof(token, { phoneNumber: phone })).flowId).toBe(view.id);
  });

  it.each([
    ['zero', { ttlMs: 0 }],
    ['over an hour', { ttlMs: 60 * 60_000 + 1 }],
    ['fractional', { ttlMs: 1500.5 }],
    ['a string', { ttlMs: '60000' }],
    ['an unknown option', { ttl: 60_000 }],
  ])('a bad ttlMs (%s) is invalid_input on options', async (_name, options) => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    const error = await env.verikit.issueProof(view.id, options as never).catch((caught: unknown) => caught);
    expect(InvalidInputError.isInstance(error) && error.field).toMatch(/^options(\.ttlMs)?$/);
  });

  it('an hour is the longest life', async () => {
    const env = setup();
    const view = await verifiedPhoneFlow(env);
    expect((await env.verikit.issueProof(view.id, { ttlMs: 60 * 60_000 })).expiresAt).toBe(
      env.clock.now() + 60 * 60_000,
    );
  });
});
