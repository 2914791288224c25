import {
  InvalidInputError,
  ProviderAuthenticationError,
  ProviderUnavailableError,
  silentLogger,
  type ProviderCallContextV1,
} from '@verikit/provider';
import { isProvablyUnsent } from '@verikit/provider-utils';
import { failureOf } from '@verikit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSmileIdProvider } from './index.js';
import { startSmileIdFake, type SmileIdFake } from './fake/index.js';

const context = (n = 1, signal = new AbortController().signal): ProviderCallContextV1 => ({
  signal,
  idempotencyKey: `flow-s:effect:${n}`,
  logger: silentLogger,
});
const adaeze = { idType: 'bvn' as const, number: '22222222222' };
const selfie = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9, 9, 9]);

describe('the Smile ID provider against its fake', () => {
  let fake: SmileIdFake;
  const provider = () =>
    createSmileIdProvider({
      partnerId: fake.partnerId,
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      callbackUrl: 'http://127.0.0.1/callback',
      pollMs: 0,
    });
  beforeAll(async () => {
    fake = await startSmileIdFake();
  });
  beforeEach(() => fake.reset());
  afterAll(() => fake.close());

  it('declares match and face on BVN, NIN and vNIN, and no OTP, consent or messaging', () => {
    const made = provider();
    expect(made.identitySteps).toMatchObject({ types: ['bvn', 'nin'], virtualNin: true });
    expect(made.identitySteps?.consent).toBeUndefined();
    expect([made.identity, made.sms, made.phone]).toEqual([undefined, undefined, undefined]);
    // Without a callback URL Smile ID takes no Biometric KYC job: no face step.
    expect(
      createSmileIdProvider({ partnerId: '1', apiKey: 'k'.repeat(32), baseUrl: fake.baseUrl }).identitySteps?.face,
    ).toBeUndefined();
  });

  it('answers a match with booleans only: exact, partial, no record; one charged lookup each', async () => {
    const exact = await provider().identitySteps!.match!(
      {
        ...adaeze,
        claims: { firstName: 'adaeze', lastName: 'OKONKWO', dateOfBirth: '1991-04-23', phoneNumber: '+2348031110001' },
      },
      context(),
    );
    expect(exact).toEqual({
      found: true,
      fields: { firstName: true, lastName: true, dateOfBirth: true, phoneNumber: true },
    });
    const partial = await provider().identitySteps!.match!(
      { ...adaeze, claims: { lastName: 'Okafor', dateOfBirth: '1991-04-24' } },
      context(),
    );
    expect(partial).toEqual({ found: true, fields: { lastName: false, dateOfBirth: false } });
    const none = await provider().identitySteps!.match!(
      { idType: 'nin', number: '99999999999', claims: { lastName: 'X' } },
      context(),
    );
    expect(none).toEqual({ found: false, fields: {} });
    expect(fake.charges.map((charge) => charge.step)).toEqual(['match', 'match', 'match']);
    expect(JSON.stringify([exact, partial, none])).not.toMatch(/Okonkwo|1991|0803/i);
  });

  it('runs a face job (upload, zip, signed status): match, mismatch, liveness failed, not found', async () => {
    const people = [{ ...adaeze, face: selfie }];
    const own = await startSmileIdFake({
      people: people.map((person) => ({
        number: person.number,
        firstName: 'A',
        lastName: 'B',
        dateOfBirth: '1990-01-01',
        phoneNumber: '+2348030000000',
        face: person.face,
      })),
    });
    try {
      const made = createSmileIdProvider({
        partnerId: own.partnerId,
        apiKey: own.apiKey,
        baseUrl: own.baseUrl,
        callbackUrl: 'http://127.0.0.1/callback',
        pollMs: 0,
      });
      expect(await made.identitySteps!.face!({ ...adaeze, image: selfie }, context(1))).toEqual({
        found: true,
        match: true,
        live: true,
      });
      const other = new Uint8Array([0xff, 0xd8, 0xff, 1]);
      expect(await made.identitySteps!.face!({ ...adaeze, image: other }, context(2))).toEqual({
        found: true,
        match: false,
        live: true,
      });
      const spoof = new Uint8Array([...selfie.slice(0, 4), ...Buffer.from('SPOOF')]);
      expect(await made.identitySteps!.face!({ ...adaeze, image: spoof }, context(3))).toMatchObject({ live: false });
      expect(
        await made.identitySteps!.face!({ idType: 'nin', number: '99999999999', image: selfie }, context(4)),
      ).toEqual({
        found: false,
        match: false,
      });
      expect(own.charges.map((charge) => charge.step)).toEqual(['face', 'face', 'face', 'face']);
    } finally {
      await own.close();
    }
  });

  it('signs every request: a wrong key is refused by Smile ID as credentials, never retried elsewhere', async () => {
    const wrong = createSmileIdProvider({ partnerId: fake.partnerId, apiKey: 'w'.repeat(32), baseUrl: fake.baseUrl });
    const error = await failureOf(
      wrong.identitySteps!.match!({ ...adaeze, claims: { lastName: 'Okonkwo' } }, context()),
    );
    expect(ProviderAuthenticationError.isInstance(error)).toBe(true);
    expect(fake.charges).toEqual([]);
  });

  it('maps an outage as messaging does: 500/503 provably unsent, 502/504 maybe sent; no identity number in the error', async () => {
    for (const [status, unsent] of [
      [500, true],
      [503, true],
      [502, false],
      [504, false],
    ] as const) {
      fake.setOutage(status);
      const error = await failureOf(
        provider().identitySteps!.match!({ ...adaeze, claims: { lastName: 'Okonkwo' } }, context()),
      );
      expect(ProviderUnavailableError.isInstance(error), `${status}: ${error.code} ${error.message}`).toBe(true);
      expect(isProvablyUnsent(error), `${status}: ${JSON.stringify(error)}`).toBe(unsent);
      expect(JSON.stringify([error.message, { ...error }])).not.toContain(adaeze.number);
    }
    expect(fake.charges).toEqual([]);
  });

  it('refuses a malformed input naming the field, before any request', async () => {
    const error = await failureOf(
      provider().identitySteps!.match!({ idType: 'bvn', number: '123', claims: {} }, context()),
    );
    expect(InvalidInputError.isInstance(error) && error.field).toBe('number');
    expect(fake.requests).toHaveLength(0);
  });
});
