import { CapabilityError, InvalidInputError, ProviderUnavailableError } from '@verikit/provider';
import { createTestProviderV1, failureOf } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { setup } from './engine.fixtures.js';

const bvn = '22345678901';
const claims = { firstName: 'Adaeze', lastName: 'Okonkwo', dateOfBirth: '1991-04-23' };
// A JPEG's first bytes and a little more: what the face step passes through and never keeps.
const selfie = new Uint8Array([
  0xff,
  0xd8,
  0xff,
  0xe0,
  ...Array.from({ length: 60 }, (_, index) => (index * 37) % 256),
]);
const selfieText = Buffer.from(selfie).toString('base64');

/** Everything a leak could be found in: the store's raw values, the logs, the views and the events. */
function secretsIn(text: string): string[] {
  return [bvn, claims.firstName, claims.lastName, claims.dateOfBirth, selfieText].filter((secret) =>
    text.includes(secret),
  );
}

describe('the identity ladder: match → consent → otp → face, each step a provider call', () => {
  it('climbs every step, shows the current step and what to do, and verifies with a proof that names the steps', async () => {
    const { verikit, provider, raw, logs } = setup();
    const events: unknown[] = [];
    verikit.on('*', (event) => {
      events.push(event);
    });
    const start = await verikit.start({
      kind: 'identity',
      idType: 'bvn',
      number: bvn,
      steps: ['match', 'consent', 'otp', 'face'],
      claims,
    });
    // The match ran at start and passed; the consent request is out.
    expect(start).toMatchObject({ status: 'awaiting-consent', step: 'consent', allowed: ['cancel', 'consent-given'] });
    expect(start.consentUrl).toMatch(/^https:\/\/consent\.test\/consent-/);
    expect(provider.callsOf('identity.match')[0]?.input).toMatchObject({ idType: 'bvn', number: bvn, claims });
    const consented = await verikit.send(start.id, { type: 'consent-given' });
    // Consent granted: the OTP went to the record's phone.
    expect(consented).toMatchObject({ status: 'awaiting-code', step: 'otp' });
    expect(consented.consentUrl).toBeUndefined();
    const code = provider.lastCode('+2348000000000')!;
    const coded = await verikit.send(start.id, { type: 'submit-code', code });
    expect(coded).toMatchObject({ status: 'awaiting-selfie', step: 'face', allowed: ['cancel', 'submit-selfie'] });
    const done = await verikit.send(start.id, { type: 'submit-selfie', image: selfieText });
    expect(done).toMatchObject({ status: 'verified', done: true, steps: ['match', 'consent', 'otp', 'face'] });
    expect(done.step).toBeUndefined();
    expect(Buffer.from(provider.callsOf('identity.face')[0]!.input.image)).toEqual(Buffer.from(selfie));
    const verification = await verikit.verification(start.id);
    expect(verification.steps).toEqual([
      { step: 'match', by: 'test', fields: { firstName: true, lastName: true, dateOfBirth: true } },
      { step: 'consent', by: 'test' },
      { step: 'otp', by: 'test' },
      { step: 'face', by: 'test', live: true },
    ]);
    const proof = await verikit.issueProof(start.id);
    const redeemed = await verikit.redeemProof(
      proof.token,
      { idType: 'bvn', number: bvn },
      { steps: ['match', 'face'] },
    );
    expect(redeemed.steps?.map((step) => step.step)).toEqual(['match', 'consent', 'otp', 'face']);
    // No identity number, name, date of birth or image byte in the store, the logs, the views or the events.
    expect(secretsIn(raw())).toEqual([]);
    expect(secretsIn(JSON.stringify(logs))).toEqual([]);
    expect(secretsIn(JSON.stringify([start, consented, coded, done, verification, events]))).toEqual([]);
  });

  it('ends failed on a partial match, naming the fields that differ (never their values), and calls nothing more', async () => {
    const { verikit, provider } = setup();
    provider.script('identity.match', { found: true, fields: { firstName: true, lastName: false, dateOfBirth: true } });
    const view = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['match', 'otp'], claims });
    expect(view).toMatchObject({ status: 'failed', done: true, error: { code: 'match_failed' } });
    expect(view.error?.message).toContain('lastName');
    expect(view.error?.message).not.toContain(claims.lastName);
    expect(provider.callsOf('identity.sendOtp')).toHaveLength(0);
  });

  it('ends failed with no_record, consent_refused and face_mismatch as the provider answers', async () => {
    const { verikit, provider } = setup();
    provider.script('identity.match', { found: false, fields: {} });
    const noRecord = await verikit.start({ kind: 'identity', idType: 'nin', number: bvn, steps: ['match'], claims });
    expect(noRecord.error?.code).toBe('no_record');

    provider.script('identity.consent.status', { status: 'pending' }, { status: 'refused' });
    const consent = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['consent'] });
    const pending = await verikit.send(consent.id, { type: 'consent-given' });
    expect(pending).toMatchObject({ status: 'awaiting-consent', error: { code: 'consent_pending' } });
    const refused = await verikit.send(consent.id, { type: 'consent-given' });
    expect(refused).toMatchObject({ status: 'failed', error: { code: 'consent_refused' } });

    provider.script('identity.face', { found: true, match: false, live: true });
    const face = await verikit.start({ kind: 'identity', idType: 'nin', number: '12345678901', steps: ['face'] });
    expect(face.status).toBe('awaiting-selfie');
    const mismatch = await verikit.send(face.id, { type: 'submit-selfie', image: selfie });
    expect(mismatch).toMatchObject({ status: 'failed', error: { code: 'face_mismatch' } });
  });

  it('keeps the selfie step open when the provider is down: a new selfie may be tried', async () => {
    const { verikit, provider } = setup();
    provider.failNext('identity.face', new ProviderUnavailableError('down', { requestSent: false }));
    const flow = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['face'] });
    const down = await verikit.send(flow.id, { type: 'submit-selfie', image: selfie });
    expect(down).toMatchObject({ status: 'awaiting-selfie', error: { code: 'provider_unavailable' } });
    const done = await verikit.send(flow.id, { type: 'submit-selfie', image: selfie });
    expect(done.status).toBe('verified');
  });

  it('refuses at start, before anything is stored or sent, a ladder step no provider has', async () => {
    const { verikit, provider, raw } = setup({ provider: createTestProviderV1({ identitySteps: ['match'] }) });
    const error = await failureOf(
      verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['match', 'face'], claims }),
    );
    expect(CapabilityError.isInstance(error)).toBe(true);
    expect(error.field).toBe('steps');
    expect(provider.calls).toHaveLength(0);
    expect(raw()).toBe('[]');
  });

  it('refuses bad ladders and claims with a typed error naming the field, never echoing the value', async () => {
    const { verikit } = setup();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ steps: ['match'] }, 'claims'],
      [{ steps: ['otp'], claims }, 'claims'],
      [{ steps: ['otp', 'otp'] }, 'steps'],
      [{ steps: ['fingerprint'] }, 'steps.0'],
      [{ steps: ['match'], claims: { dateOfBirth: '1991-02-30' } }, 'claims.dateOfBirth'],
      [{ steps: ['match'], claims: { firstName: 'Ada<script>' } }, 'claims.firstName'],
      [{ steps: ['match'], claims: {} }, 'claims'],
    ];
    for (const [extra, field] of cases) {
      const error = await failureOf(verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, ...extra } as never));
      expect(InvalidInputError.isInstance(error), JSON.stringify(extra)).toBe(true);
      expect((error as InvalidInputError).issues.map((issue) => issue.field)).toContain(field);
      expect(error.message).not.toContain('1991-02-30');
    }
    const flow = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn, steps: ['face'] });
    const notImage = await failureOf(verikit.send(flow.id, { type: 'submit-selfie', image: 'aGVsbG8=' }));
    expect((notImage as InvalidInputError).issues[0]).toMatchObject({
      field: 'event.image',
      message: 'must be a JPEG or PNG image',
    });
    const tooBig = new Uint8Array(2 * 1024 * 1024 + 1);
    tooBig.set([0xff, 0xd8, 0xff]);
    const big = await failureOf(verikit.send(flow.id, { type: 'submit-selfie', image: tooBig }));
    expect((big as InvalidInputError).issues[0]).toMatchObject({
      field: 'event.image',
      message: 'must be at most 2 MiB',
    });
  });

  it('keeps an identity flow without a ladder as it was: the OTP alone, and its proof passed otp', async () => {
    const { verikit, provider } = setup();
    const flow = await verikit.start({ kind: 'identity', idType: 'bvn', number: bvn });
    expect(flow.status).toBe('awaiting-code');
    expect(flow.steps).toBeUndefined();
    const done = await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode('+2348000000000')! });
    expect(done.status).toBe('verified');
    expect((await verikit.verification(flow.id)).steps).toEqual([{ step: 'otp', by: 'test' }]);
    const proof = await verikit.issueProof(flow.id);
    await expect(
      verikit.redeemProof(proof.token, { idType: 'bvn', number: bvn }, { steps: ['match'] }),
    ).rejects.toMatchObject({ reason: 'steps' });
  });
});
