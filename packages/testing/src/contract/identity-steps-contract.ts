import {
  CapabilityError,
  requireCapabilityV1,
  silentLogger,
  type IdentityClaimsV1,
  type IdentityType,
  type ProviderCallContextV1,
  type ProviderV1,
} from '@verikit/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What {@link runIdentityStepsContract} needs of a provider under test, and of the register it answers from. */
export interface IdentityStepsSubject {
  /** The provider. */
  readonly provider: ProviderV1;
  /** A BVN the register holds, and the claims that agree with its record. */
  readonly known: {
    /** The BVN. */
    readonly number: string;
    /** Claims that agree with its record. */
    readonly claims: IdentityClaimsV1;
  };
  /** A BVN the register does not hold. */
  readonly unknown: string;
  /**
   * More records the register holds (a NIN, a vNIN), each with claims that agree with it: a match of each must agree
   * in full. For a provider whose `types` include `nin` (and `virtualNin`), so every register it declares is run.
   */
  readonly others?: ReadonlyArray<{
    /** The register. */
    readonly idType: IdentityType;
    /** The NIN or vNIN. */
    readonly number: string;
    /** Claims that agree with its record. */
    readonly claims: IdentityClaimsV1;
  }>;
  /** A selfie that is the known person, and one that is not. */
  readonly selfies: {
    /** The known person's selfie. */
    readonly same: Uint8Array;
    /** Someone else's. */
    readonly other: Uint8Array;
  };
  /** Stops what the setup started. */
  readonly close?: () => Promise<void>;
}

/**
 * The contract of the identity steps (`identitySteps` of spec v1) every provider with them must pass: each step it
 * declares answers with booleans only (never the record's data), a partial match names the claims that differ, a
 * number not in the register is `found: false`, a selfie that is not the person is no match, and each step it lacks
 * is a `CapabilityError` from `requireCapabilityV1`, so a flow needing it fails at start.
 */
export function runIdentityStepsContract(name: string, setup: () => Promise<IdentityStepsSubject>): void {
  describe(`identity steps contract: ${name}`, () => {
    let subject: IdentityStepsSubject;
    let effect = 0;
    const context = (): ProviderCallContextV1 => ({
      signal: AbortSignal.timeout(30_000),
      idempotencyKey: `contract-flow:effect:${++effect}`,
      logger: silentLogger,
    });
    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(() => subject?.close?.());
    const steps = () => subject.provider.identitySteps;

    it('declares each step it has for bvn, and a step it lacks (the OTP too) fails at start with a CapabilityError', () => {
      for (const step of ['match', 'consent', 'face'] as const) {
        const need = { capability: 'identity-step', step, idType: 'bvn' } as const;
        if (steps()?.[step] === undefined)
          expect(() => requireCapabilityV1(subject.provider, need)).toThrow(CapabilityError);
        else expect(() => requireCapabilityV1(subject.provider, need)).not.toThrow();
      }
      const otp = () => requireCapabilityV1(subject.provider, { capability: 'identity', idType: 'bvn' });
      if (subject.provider.identity === undefined) expect(otp).toThrow(CapabilityError);
      else expect(otp).not.toThrow();
    });

    it('match: every other register it declares (NIN, vNIN) agrees in full with its record', async (test) => {
      const match = steps()?.match;
      const others = (subject.others ?? []).filter((other) => steps()?.types.includes(other.idType));
      if (match === undefined || others.length === 0) return test.skip();
      for (const other of others) {
        const answer = await match(other, context());
        expect(answer, other.idType).toMatchObject({ found: true });
        expect(Object.keys(answer.fields).sort()).toEqual(Object.keys(other.claims).sort());
        expect(
          Object.values(answer.fields).every((value) => value === true),
          JSON.stringify(answer),
        ).toBe(true);
      }
    });

    it('match: agreeing claims are all true, a differing one false, an unknown number not found; booleans only', async (test) => {
      const match = steps()?.match;
      if (match === undefined) return test.skip();
      const agreeing = await match(
        { idType: 'bvn', number: subject.known.number, claims: subject.known.claims },
        context(),
      );
      expect(agreeing.found).toBe(true);
      expect(Object.keys(agreeing.fields).sort()).toEqual(Object.keys(subject.known.claims).sort());
      expect(Object.values(agreeing.fields).every((value) => value === true)).toBe(true);
      const partial = await match(
        { idType: 'bvn', number: subject.known.number, claims: { ...subject.known.claims, lastName: 'Zzyzx' } },
        context(),
      );
      expect(partial.fields.lastName).toBe(false);
      const none = await match({ idType: 'bvn', number: subject.unknown, claims: subject.known.claims }, context());
      expect(none.found).toBe(false);
      for (const answer of [agreeing, partial, none])
        for (const value of Object.values(subject.known.claims)) expect(JSON.stringify(answer)).not.toContain(value);
    });

    it('consent: a request has a reference, and its status is granted, refused or pending', async (test) => {
      const consent = steps()?.consent;
      if (consent === undefined) return test.skip();
      const request = await consent.request({ idType: 'bvn', number: subject.known.number }, context());
      expect(request.reference).toMatch(/^[\x21-\x7e]{1,256}$/);
      expect(JSON.stringify(request)).not.toContain(subject.known.number);
      expect(['granted', 'refused', 'pending']).toContain(
        (await consent.status({ reference: request.reference }, context())).status,
      );
    });

    it('face: the person matches, another selfie does not, an unknown number is not found', async (test) => {
      const face = steps()?.face;
      if (face === undefined) return test.skip();
      const same = await face({ idType: 'bvn', number: subject.known.number, image: subject.selfies.same }, context());
      expect(same).toMatchObject({ found: true, match: true });
      const other = await face(
        { idType: 'bvn', number: subject.known.number, image: subject.selfies.other },
        context(),
      );
      expect(other.match).toBe(false);
      const none = await face({ idType: 'bvn', number: subject.unknown, image: subject.selfies.same }, context());
      expect(none.found).toBe(false);
    });
  });
}
