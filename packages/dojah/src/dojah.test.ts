import { InvalidInputError, ProviderAuthenticationError, ProviderUnavailableError } from '@verikit/provider';
import { isProvablyUnsent } from '@verikit/provider-utils';
import { failureOf, leakWatch } from '@verikit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dojahSandboxPeople, startDojahFake, type DojahFake } from './fake/index.js';
import { createDojahProvider } from './index.js';

const adaeze = { idType: 'bvn' as const, number: '22222222222' };
const claims = { firstName: 'adaeze', lastName: 'OKONKWO', dateOfBirth: '1991-04-23' };
const photo = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9, 9, 9]);
const people = dojahSandboxPeople.map((person) => ({ ...person, face: photo }));

describe('the Dojah provider against its fake', () => {
  let fake: DojahFake;
  const watch = leakWatch();
  const provider = () =>
    createDojahProvider({
      appId: fake.appId,
      secretKey: fake.secretKey,
      baseUrl: fake.baseUrl,
      hooks: watch.hooks,
      connectionRetries: 0,
    });
  const steps = () => provider().identitySteps!;
  beforeAll(async () => {
    fake = await startDojahFake({ people });
  });
  beforeEach(() => fake.reset());
  afterAll(() => fake.close());

  it('declares match and face on BVN, NIN and vNIN, and no OTP, consent or messaging', () => {
    const made = provider();
    expect(made.name).toBe('dojah');
    expect(made.identitySteps).toMatchObject({ types: ['bvn', 'nin'], virtualNin: true });
    expect(made.identitySteps?.consent).toBeUndefined();
    expect([made.identity, made.sms, made.phone, made.whatsapp]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('matches a BVN by Validate BVN: the claims go to Dojah in the query, booleans come back, one charge each', async () => {
    const exact = await steps().match!({ ...adaeze, claims }, watch.context());
    expect(exact).toEqual({ found: true, fields: { firstName: true, lastName: true, dateOfBirth: true } });
    const partial = await steps().match!(
      { ...adaeze, claims: { lastName: 'Okafor', dateOfBirth: '1991-04-24' } },
      watch.context(),
    );
    expect(partial).toEqual({ found: true, fields: { lastName: false, dateOfBirth: false } });
    const none = await steps().match!({ idType: 'bvn', number: '99999999999', claims }, watch.context());
    expect(none).toEqual({ found: false, fields: {} });
    expect(fake.requests.map((request) => [request.method, request.path])).toEqual([
      ['GET', '/api/v1/kyc/bvn'],
      ['GET', '/api/v1/kyc/bvn'],
      ['GET', '/api/v1/kyc/bvn'],
    ]);
    expect(fake.requests[0]!.body).toEqual({
      bvn: '22222222222',
      first_name: 'adaeze',
      last_name: 'OKONKWO',
      dob: '1991-04-23',
    });
    expect(fake.requests[0]!.headers).toMatchObject({ appid: fake.appId, authorization: fake.secretKey });
    // A number not found is not billed.
    expect(fake.charges.map((charge) => charge.step)).toEqual(['match', 'match']);
  });

  it('matches a claimed phone number, a NIN and a vNIN by the register’s lookup, compared inside the provider', async () => {
    const phone = await steps().match!(
      { ...adaeze, claims: { lastName: 'Okonkwo', phoneNumber: '+2348031110001' } },
      watch.context(),
    );
    expect(phone).toEqual({ found: true, fields: { lastName: true, phoneNumber: true } });
    const nin = await steps().match!(
      {
        idType: 'nin',
        number: '70123456789',
        claims: { firstName: 'John', lastName: 'Doe', dateOfBirth: '1993-05-06', phoneNumber: '+2348123456780' },
      },
      watch.context(),
    );
    expect(nin).toEqual({
      found: true,
      fields: { firstName: true, lastName: true, dateOfBirth: true, phoneNumber: true },
    });
    const vnin = await steps().match!(
      { idType: 'nin', number: 'AB012345678910YZ', claims: { firstName: 'John', dateOfBirth: '1982-01-02' } },
      watch.context(),
    );
    expect(vnin).toEqual({ found: true, fields: { firstName: true, dateOfBirth: false } });
    const none = await steps().match!(
      { idType: 'nin', number: 'ZZ999999999999ZZ', claims: { firstName: 'John' } },
      watch.context(),
    );
    expect(none).toEqual({ found: false, fields: {} });
    expect(fake.requests.map((request) => request.path)).toEqual([
      '/api/v1/kyc/bvn/full',
      '/api/v1/kyc/nin',
      '/api/v1/kyc/vnin',
      '/api/v1/kyc/vnin',
    ]);
    expect(JSON.stringify([phone, nin, vnin, none])).not.toMatch(/okonkwo|john|doe|1993|0803|0812/i);
  });

  it('runs the selfie verification of each register: match, mismatch, not found; one charge per answer', async () => {
    expect(await steps().face!({ ...adaeze, image: photo }, watch.context())).toEqual({ found: true, match: true });
    const other = new Uint8Array([0xff, 0xd8, 0xff, 1]);
    expect(await steps().face!({ idType: 'nin', number: '70123456789', image: other }, watch.context())).toEqual({
      found: true,
      match: false,
    });
    expect(await steps().face!({ idType: 'nin', number: 'AB012345678910YZ', image: photo }, watch.context())).toEqual({
      found: true,
      match: true,
    });
    expect(await steps().face!({ idType: 'bvn', number: '99999999999', image: photo }, watch.context())).toEqual({
      found: false,
      match: false,
    });
    expect(fake.requests.map((request) => [request.method, request.path])).toEqual([
      ['POST', '/api/v1/kyc/bvn/verify'],
      ['POST', '/api/v1/kyc/nin/verify'],
      ['POST', '/api/v1/kyc/vnin/verify'],
      ['POST', '/api/v1/kyc/bvn/verify'],
    ]);
    // The selfie as bare base64 (no `data:` prefix), beside the number.
    expect(fake.requests[0]!.body).toEqual({
      bvn: '22222222222',
      selfie_image: Buffer.from(photo).toString('base64'),
    });
    expect(fake.charges.map((charge) => charge.step)).toEqual(['face', 'face', 'face']);
  });

  it('wrong credentials are an authentication error, never billed', async () => {
    const wrong = createDojahProvider({ appId: fake.appId, secretKey: 'w'.repeat(32), baseUrl: fake.baseUrl });
    expect(
      ProviderAuthenticationError.isInstance(
        await failureOf(wrong.identitySteps!.match!({ ...adaeze, claims }, watch.context())),
      ),
    ).toBe(true);
    expect(fake.charges).toEqual([]);
  });

  it.each([
    { status: 500, unsent: true },
    { status: 503, unsent: true },
    { status: 502, unsent: false },
    { status: 504, unsent: false },
  ] as const)(
    'an outage answered $status is provably unsent: $unsent, at match and at face, and is not billed',
    async ({ status, unsent }) => {
      fake.setOutage(status);
      const failures = [
        await watch.failure(steps().match!({ ...adaeze, claims }, watch.context())),
        await watch.failure(steps().face!({ ...adaeze, image: photo }, watch.context())),
      ];
      expect(failures.map((error) => [ProviderUnavailableError.isInstance(error), isProvablyUnsent(error)])).toEqual([
        [true, unsent],
        [true, unsent],
      ]);
      expect(fake.charges).toEqual([]);
    },
  );

  it('a 424 (the register behind Dojah failed) is maybe sent: another vendor is not asked', async () => {
    fake.setOutage(424);
    const error = await watch.failure(steps().match!({ ...adaeze, claims }, watch.context()));
    expect(ProviderUnavailableError.isInstance(error)).toBe(true);
    expect(isProvablyUnsent(error)).toBe(false);
    expect(error.message).toContain('HTTP 424');
    expect(fake.charges).toEqual([]);
  });

  it('keeps the number, the claims and the selfie out of errors, log lines and what hooks see', async () => {
    await steps().match!({ ...adaeze, claims }, watch.context());
    await steps().face!({ ...adaeze, image: photo }, watch.context());
    fake.setOutage(503);
    await watch.failure(steps().match!({ ...adaeze, claims }, watch.context()));
    expect(watch.kept.requests).toBeGreaterThan(0);
    expect(watch.kept.lines).toBeGreaterThan(0);
    watch.expectNoSecrets([
      adaeze.number,
      'adaeze',
      'OKONKWO',
      '1991-04-23',
      fake.secretKey,
      Buffer.from(photo).toString('base64'),
    ]);
  });

  it('refuses a malformed input naming the field, before any request', async () => {
    const error = await failureOf(steps().match!({ idType: 'bvn', number: '123', claims: {} }, watch.context()));
    expect(InvalidInputError.isInstance(error) && error.field).toBe('number');
    const image = await failureOf(steps().face!({ ...adaeze, image: new Uint8Array() }, watch.context()));
    expect(InvalidInputError.isInstance(image) && image.field).toBe('image');
    expect(fake.requests).toHaveLength(0);
  });
});
