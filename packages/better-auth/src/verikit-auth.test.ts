import { describe, expect, it } from 'vitest';
import { createFlowClient } from '@verikit/client';
import { betterAuthWithVerikit, phoneProof } from './better-auth.fixtures.js';

const phone = '+2348012345678';
const otherPhone = '+2348012345679';
const bvn = '22212345678';
const base = 'http://localhost:3000/api/auth';

type Env = Awaited<ReturnType<typeof betterAuthWithVerikit>>;

/** What the endpoints answer, as far as these tests read it. */
interface Answer {
  code?: string;
  reason?: string;
  field?: string;
  user: { id: string };
  identity?: { idType: string; number: string };
}

async function post(env: Env, path: string, body: unknown, cookie?: string) {
  const headers = new Headers({ 'content-type': 'application/json', origin: 'http://localhost:3000' });
  if (cookie !== undefined) headers.set('cookie', cookie);
  const response = await env.auth.handler(
    new Request(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
  );
  const sessionCookie = response.headers.getSetCookie().find((line) => line.startsWith('better-auth.session_token='));
  return { status: response.status, body: (await response.json()) as Answer, cookie: sessionCookie?.split(';')[0] };
}

async function sessionOf(env: Env, cookie: string) {
  const response = await env.auth.handler(new Request(`${base}/get-session`, { headers: { cookie } }));
  return (await response.json()) as { user: { id: string; email: string } };
}

async function signIn(env: Env, phoneNumber: string) {
  const answer = await post(env, '/sign-in/phone-proof', { phoneNumber, proof: await phoneProof(env, phoneNumber) });
  expect(answer.status).toBe(200);
  return answer;
}

describe('sign-in by phone proof', () => {
  it('signs a new number up: one user with the verified number, and a session', async () => {
    const env = await betterAuthWithVerikit();
    const answer = await signIn(env, phone);
    expect(answer.cookie).toBeDefined();
    const session = await sessionOf(env, answer.cookie!);
    expect(session.user).toMatchObject({ phoneNumber: phone, phoneNumberVerified: true, emailVerified: false });
    expect(session.user.email).toMatch(/^phone-[0-9a-f-]{36}@phone\.invalid$/);
    expect(env.rows('user')).toHaveLength(1);
  });

  it('signs the same number in again: the same user, a new session', async () => {
    const env = await betterAuthWithVerikit();
    const first = await signIn(env, phone);
    const second = await signIn(env, phone);
    expect(second.cookie).not.toBe(first.cookie);
    expect((await sessionOf(env, second.cookie!)).user.id).toBe(first.body.user.id);
    expect(env.rows('user')).toHaveLength(1);
    expect(env.rows('session')).toHaveLength(2);
  });

  it('refuses a replayed proof: 403 PROOF_REJECTED, no session', async () => {
    const env = await betterAuthWithVerikit();
    const proof = await phoneProof(env, phone);
    expect((await post(env, '/sign-in/phone-proof', { phoneNumber: phone, proof })).status).toBe(200);
    const replay = await post(env, '/sign-in/phone-proof', { phoneNumber: phone, proof });
    expect([replay.status, replay.body.code, replay.body.reason, replay.cookie]).toEqual([
      403,
      'PROOF_REJECTED',
      'used',
      undefined,
    ]);
    expect(env.rows('session')).toHaveLength(1);
  });

  it("refuses a proof for another number: no one signs in to the other number's account", async () => {
    const env = await betterAuthWithVerikit();
    const victim = await signIn(env, otherPhone);
    const proof = await phoneProof(env, phone);
    const takeover = await post(env, '/sign-in/phone-proof', { phoneNumber: otherPhone, proof });
    expect([takeover.status, takeover.body.code, takeover.body.reason, takeover.cookie]).toEqual([
      403,
      'PROOF_REJECTED',
      'mismatch',
      undefined,
    ]);
    expect(env.rows('session').map((row) => row.userId)).toEqual([victim.body.user.id]);
    // The refusal used nothing up: the proof still signs in its own number.
    expect((await post(env, '/sign-in/phone-proof', { phoneNumber: phone, proof })).status).toBe(200);
  });

  it('refuses a forged token and a malformed number with typed errors', async () => {
    const env = await betterAuthWithVerikit();
    const forged = await post(env, '/sign-in/phone-proof', { phoneNumber: phone, proof: `v2.${'A'.repeat(60)}` });
    expect([forged.status, forged.body.reason]).toEqual([403, 'invalid']);
    const malformed = await post(env, '/sign-in/phone-proof', {
      phoneNumber: '0801',
      proof: await phoneProof(env, phone),
    });
    expect([malformed.status, malformed.body.code, malformed.body.field]).toEqual([
      400,
      'INVALID_INPUT',
      'phoneNumber',
    ]);
  });

  it('lets no one set a phone number by hand: not at email sign-up, not by update-user', async () => {
    const env = await betterAuthWithVerikit();
    const victim = await signIn(env, phone);
    const signUp = await post(env, '/sign-up/email', {
      email: 'mallory@example.com',
      password: 'a-long-password-1',
      name: 'Mallory',
      phoneNumber: otherPhone,
    });
    expect(signUp.status).toBe(400);
    const mallory = await post(env, '/sign-up/email', {
      email: 'mallory@example.com',
      password: 'a-long-password-1',
      name: 'Mallory',
    });
    const update = await post(env, '/update-user', { phoneNumber: phone }, mallory.cookie);
    expect(update.status).toBe(400);
    const numbers = env.rows('user').map((row) => [row.id, row.phoneNumber]);
    expect(numbers).toEqual(
      expect.arrayContaining([
        [victim.body.user.id, phone],
        [mallory.body.user.id, null],
      ]),
    );
  });

  it('signs in no unknown number when sign-up is off', async () => {
    const env = await betterAuthWithVerikit({ signUp: false });
    const refused = await post(env, '/sign-in/phone-proof', {
      phoneNumber: phone,
      proof: await phoneProof(env, phone),
    });
    expect([refused.status, refused.body.code]).toEqual([403, 'SIGN_UP_DISABLED']);
    expect(env.rows('user')).toHaveLength(0);
  });
});

describe('attaching a BVN or NIN', () => {
  async function bvnProof(env: Env, number = bvn) {
    const { id } = await env.verikit.start({ kind: 'identity', idType: 'bvn', number });
    await env.verikit.send(id, { type: 'submit-code', code: env.provider.lastCode('+2348000000000')! });
    return (await env.verikit.issueProof(id)).token;
  }

  it('keeps the masked number and the keyed hash, never the number', async () => {
    const env = await betterAuthWithVerikit();
    const { cookie, body } = await signIn(env, phone);
    const attached = await post(
      env,
      '/identity/attach-proof',
      { idType: 'bvn', number: bvn, proof: await bvnProof(env) },
      cookie,
    );
    expect(attached.status).toBe(200);
    expect(attached.body.identity).toMatchObject({ idType: 'bvn', number: '*******5678' });
    const [record] = env.rows('identityVerification');
    expect(record).toMatchObject({
      userId: body.user.id,
      idType: 'bvn',
      numberMasked: '*******5678',
      provider: 'test',
    });
    expect(record!.numberHash).toMatch(/^[0-9a-f]{32}$/);
    const everything = Buffer.from(env.database.export()).toString('latin1');
    expect(everything.includes(bvn)).toBe(false);
  });

  it('needs a session, a proof for that number, and gives one number to one account', async () => {
    const env = await betterAuthWithVerikit();
    const owner = await signIn(env, phone);
    const other = await signIn(env, otherPhone);
    const anonymous = await post(env, '/identity/attach-proof', {
      idType: 'bvn',
      number: bvn,
      proof: await bvnProof(env),
    });
    expect(anonymous.status).toBe(401);
    const wrong = await post(
      env,
      '/identity/attach-proof',
      { idType: 'bvn', number: '22212345679', proof: await bvnProof(env) },
      owner.cookie,
    );
    expect([wrong.status, wrong.body.reason]).toEqual([403, 'mismatch']);
    expect(
      (
        await post(
          env,
          '/identity/attach-proof',
          { idType: 'bvn', number: bvn, proof: await bvnProof(env) },
          owner.cookie,
        )
      ).status,
    ).toBe(200);
    const taken = await post(
      env,
      '/identity/attach-proof',
      { idType: 'bvn', number: bvn, proof: await bvnProof(env) },
      other.cookie,
    );
    expect([taken.status, taken.body.code]).toEqual([409, 'IDENTITY_ALREADY_ATTACHED']);
    expect(env.rows('identityVerification')).toHaveLength(1);
  });
});

describe('the flow routes below the auth base path', () => {
  it('run a whole phone verification with @verikit/client, then sign in with its proof', async () => {
    const env = await betterAuthWithVerikit();
    const flows = createFlowClient({
      baseUrl: `${base}/verikit`,
      fetch: (input, init) => env.auth.handler(new Request(input, init)),
      storage: false,
      ownerStorage: false,
    });
    const started = await flows.start({ kind: 'phone', phoneNumber: phone });
    expect(started.status).toBe('awaiting-code');
    const verified = await flows.send(started.id, { type: 'submit-code', code: env.provider.lastCode(phone)! });
    expect(verified.status).toBe('verified');
    const { token } = await flows.proof(started.id);
    expect((await post(env, '/sign-in/phone-proof', { phoneNumber: phone, proof: token })).status).toBe(200);
    const stranger = await env.auth.handler(new Request(`${base}/verikit/flows/${started.id}`));
    expect(stranger.status).toBe(404);
  });
});
