import { createVerikit } from '@verikit/core';
import { withFailover } from '@verikit/provider-utils';
import { createTestProviderV1 } from '@verikit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSmileIdFake, type SmileIdFake } from './fake/index.js';
import { createSmileIdProvider } from './index.js';

// The identity ladder across two Smile ID accounts (A first, B second) and the test double for the OTP, through the
// real engine and real HTTP: A fails at every step; the flow goes on at B, with one charged lookup per step, and a
// step A may have taken (a timeout after the send, a 502/504) is never asked of B.

const secret = 'failover-ladder-secret-0123456789abcdefghij';
const bvn = '22222222222';
const claims = { firstName: 'Adaeze', lastName: 'Okonkwo', dateOfBirth: '1991-04-23' };
const selfie = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 5, 6, 7]);

describe('the identity ladder fails over between identity vendors', () => {
  let a: SmileIdFake;
  let b: SmileIdFake;
  beforeAll(async () => {
    [a, b] = await Promise.all([
      startSmileIdFake(),
      startSmileIdFake({ partnerId: '0001', apiKey: 'smile-id-fake-b-key' }),
    ]);
  });
  beforeEach(() => {
    a.reset();
    b.reset();
  });
  afterAll(() => Promise.all([a.close(), b.close()]));

  function engine(timeout = 10_000) {
    const member = (fake: SmileIdFake, name: string) =>
      createSmileIdProvider({
        name,
        partnerId: fake.partnerId,
        apiKey: fake.apiKey,
        baseUrl: fake.baseUrl,
        callbackUrl: 'http://127.0.0.1/callback',
        pollMs: 0,
        timeout,
        connectionRetries: 0,
      });
    const otp = createTestProviderV1({ name: 'otp', identitySteps: [] });
    const provider = withFailover([member(a, 'smile-id-a'), member(b, 'smile-id-b'), otp], { breaker: false });
    return { verikit: createVerikit({ provider, secret }), otp };
  }

  it.each([500, 503] as const)(
    'A answers %i at every step: match and face go on at B, one charged lookup each',
    async (status) => {
      a.setOutage(status);
      const { verikit, otp } = engine();
      const start = await verikit.start({
        kind: 'identity',
        idType: 'bvn',
        number: bvn,
        steps: ['match', 'otp', 'face'],
        claims,
      });
      expect(start).toMatchObject({ status: 'awaiting-code', step: 'otp' });
      const coded = await verikit.send(start.id, { type: 'submit-code', code: otp.lastCode('+2348000000000')! });
      expect(coded.status).toBe('awaiting-selfie');
      const done = await verikit.send(start.id, { type: 'submit-selfie', image: selfie });
      expect(done.status).toBe('verified');
      // A received each step and failed it; B charged exactly one lookup per step; A charged none.
      expect(a.requests.map((request) => request.path)).toEqual(['/v1/id_verification', '/v1/upload']);
      expect(a.charges).toEqual([]);
      expect(b.charges.map((charge) => charge.step)).toEqual(['match', 'face']);
      const verification = await verikit.verification(start.id);
      expect(verification.steps?.map((step) => [step.step, step.by])).toEqual([
        ['match', 'smile-id-b'],
        // identity.sendOtp returns nothing, so a composition cannot say which member delivered the OTP: its own name.
        ['otp', 'failover'],
        ['face', 'smile-id-b'],
      ]);
    },
  );

  it.each([502, 504] as const)(
    'A answers %i (a gateway: A may have taken it): the step fails, B is never asked',
    async (status) => {
      a.setOutage(status);
      const { verikit } = engine();
      const view = await verikit.start({
        kind: 'identity',
        idType: 'bvn',
        number: bvn,
        steps: ['match', 'face'],
        claims,
      });
      expect(view).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
      expect(b.requests).toHaveLength(0);
    },
  );

  it('A never answers (a timeout after the send): the face step stays open for a new selfie, and B is never asked', async () => {
    const { verikit } = engine(300);
    const start = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['face'] });
    a.setOutage('hang');
    const view = await verikit.send(start.id, { type: 'submit-selfie', image: selfie });
    expect(view).toMatchObject({ status: 'awaiting-selfie', error: { code: 'provider_unavailable' } });
    expect(a.requests.length).toBeGreaterThan(0);
    expect(b.requests).toHaveLength(0);
    expect(b.charges).toEqual([]);
  });
});
