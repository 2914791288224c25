import { createVerikit } from '@verikit/core';
import type { DojahFake } from '@verikit/dojah/fake';
import type { SmileIdFake } from '@verikit/smile-id/fake';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startVendors, type Vendors } from './identity-vendors.fixtures.js';

// The identity ladder across two identity vendors, Smile ID first (A) and Dojah second (B), with the test double
// for the OTP, through the real engine and real HTTP to each vendor's fake: A fails at every step; the flow goes on at
// B with exactly one charged request per step, and a step A may have taken (a 502/504, a timeout after the send) is
// never asked of B. It replaces the test that failed over between two Smile ID accounts: the same rules, now between
// vendors whose APIs differ.

const secret = 'failover-ladder-secret-0123456789abcdefghij';
const bvn = '22222222222';
const claims = { firstName: 'Adaeze', lastName: 'Okonkwo', dateOfBirth: '1991-04-23' };
const selfie = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 5, 6, 7]);

describe('the identity ladder fails over from Smile ID to Dojah', () => {
  let vendors: Vendors;
  let smileId: SmileIdFake;
  let dojah: DojahFake;
  beforeAll(async () => {
    vendors = await startVendors();
    ({ smileId, dojah } = vendors);
  });
  beforeEach(() => vendors.reset());
  afterAll(() => vendors.close());

  function engine(timeout = 10_000) {
    const { provider, otp } = vendors.kyc(timeout);
    return { verikit: createVerikit({ provider, secret }), otp };
  }

  it.each([500, 503] as const)(
    'Smile ID answers %i at every step: match and face go on at Dojah, one charged request each, none at Smile ID',
    async (status) => {
      smileId.setOutage(status);
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
      // Smile ID received each step and failed it; Dojah got one request per step and billed each once.
      expect(smileId.requests.map((request) => request.path)).toEqual(['/v1/id_verification', '/v1/upload']);
      expect(smileId.charges).toEqual([]);
      expect(dojah.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /api/v1/kyc/bvn',
        'POST /api/v1/kyc/bvn/verify',
      ]);
      expect(dojah.charges.map((charge) => charge.step)).toEqual(['match', 'face']);
      const verification = await verikit.verification(start.id);
      expect(verification.steps?.map((step) => [step.step, step.by])).toEqual([
        ['match', 'dojah'],
        // identity.sendOtp returns nothing, so a composition cannot say which member delivered the OTP: its own name.
        ['otp', 'failover'],
        ['face', 'dojah'],
      ]);
    },
  );

  it.each([502, 504] as const)(
    'Smile ID answers %i (a gateway: Smile ID may have taken it): the match fails, Dojah is never asked',
    async (status) => {
      smileId.setOutage(status);
      const { verikit } = engine();
      const view = await verikit.start({
        kind: 'identity',
        idType: 'bvn',
        number: bvn,
        steps: ['match', 'face'],
        claims,
      });
      expect(view).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
      expect(dojah.requests).toHaveLength(0);
    },
  );

  it.each([502, 504] as const)(
    'Smile ID answers %i at the face step: the step stays open for a new selfie, Dojah is never asked',
    async (status) => {
      const { verikit } = engine();
      const start = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['face'] });
      smileId.setOutage(status);
      const view = await verikit.send(start.id, { type: 'submit-selfie', image: selfie });
      expect(view).toMatchObject({ status: 'awaiting-selfie', error: { code: 'provider_unavailable' } });
      expect(smileId.requests.map((request) => request.path)).toEqual(['/v1/upload']);
      expect(dojah.requests).toHaveLength(0);
    },
  );

  it('Smile ID never answers (a timeout after the send): the face step stays open, and Dojah is never asked', async () => {
    const { verikit } = engine(300);
    const start = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['face'] });
    smileId.setOutage('hang');
    const view = await verikit.send(start.id, { type: 'submit-selfie', image: selfie });
    expect(view).toMatchObject({ status: 'awaiting-selfie', error: { code: 'provider_unavailable' } });
    expect(smileId.requests.length).toBeGreaterThan(0);
    expect(dojah.requests).toHaveLength(0);
    expect(dojah.charges).toEqual([]);
  });
});
