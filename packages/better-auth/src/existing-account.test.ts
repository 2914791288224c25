import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { betterAuthWithVerikit, phoneProof } from './better-auth.fixtures.js';
import { toNodeHandler } from './node.js';
import type { VerikitAuthOptions } from './verikit-auth-options.js';

const phone = '+2348012345678';
const newPhone = '+2348012345679';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

/** A real Better Auth instance with the plugin, on SQLite, served over HTTP on 127.0.0.1 (port 0). */
async function serve(options: Partial<VerikitAuthOptions> = {}, setup: { dialIn?: boolean } = {}) {
  const env = await betterAuthWithVerikit(options, setup);
  server = createServer(toNodeHandler(env.auth));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth`;
  async function call(method: string, path: string, body?: unknown, cookie?: string) {
    const headers: Record<string, string> = { origin: 'http://localhost:3000' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (cookie !== undefined) headers.cookie = cookie;
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const set = response.headers.getSetCookie().find((line) => line.startsWith('better-auth.session_token='));
    const text = await response.text();
    return {
      status: response.status,
      body: (text === '' ? {} : JSON.parse(text)) as Record<string, any>,
      cookie: set?.split(';')[0],
    };
  }
  /** An email user, signed up and signed in: their session cookie and id. */
  async function emailUser(name: string) {
    const answer = await call('POST', '/sign-up/email', {
      email: `${name}-${randomUUID()}@example.com`,
      password: 'a long enough password',
      name,
    });
    expect(answer.status).toBe(200);
    return { cookie: answer.cookie!, id: answer.body.user.id as string };
  }
  const link = async (cookie: string | undefined, phoneNumber: string, proof?: string) =>
    call(
      'POST',
      '/phone-number/link-proof',
      { phoneNumber, proof: proof ?? (await phoneProof(env, phoneNumber)) },
      cookie,
    );
  /** A second session of the first user, signed in by email and password (another device). */
  const secondSession = async () =>
    (await call('POST', '/sign-in/email', { email: env.rows('user')[0]!.email, password: 'a long enough password' }))
      .cookie!;
  const session = async (cookie: string) => (await call('GET', '/get-session', undefined, cookie)).body;
  return { ...env, call, emailUser, link, session, secondSession };
}

describe('an account that exists links and changes its phone (issue 37)', () => {
  it('an email user links a verified phone: one account, the number set, and signs in by phone afterwards', async () => {
    const app = await serve();
    const alice = await app.emailUser('alice');
    const linked = await app.link(alice.cookie, phone);
    expect(linked.status).toBe(200);
    expect(linked.body).toEqual({ user: { id: alice.id, phoneNumber: phone }, changed: false });
    expect(linked.cookie).toBeUndefined();
    expect(app.rows('user')).toHaveLength(1);
    expect((await app.session(alice.cookie)).user).toMatchObject({
      id: alice.id,
      phoneNumber: phone,
      phoneNumberVerified: true,
    });
    const byPhone = await app.call('POST', '/sign-in/phone-proof', {
      phoneNumber: phone,
      proof: await phoneProof(app, phone),
    });
    expect(byPhone.status).toBe(200);
    expect(byPhone.body.user).toEqual({ id: alice.id, phoneNumber: phone });
    expect(app.rows('user')).toHaveLength(1);
  });

  it('changes the number: the new one verified, the old one told by SMS once, sessions kept; the old number no longer signs in to it', async () => {
    const app = await serve({ phoneNumberChange: { notifyOldNumber: { from: 'Shop' } } });
    const alice = await app.emailUser('alice');
    const elsewhere = await app.secondSession();
    await app.link(alice.cookie, phone);
    const changed = await app.link(alice.cookie, newPhone);
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ user: { id: alice.id, phoneNumber: newPhone }, changed: true });
    expect(app.rows('user').map((row) => row.phoneNumber)).toEqual([newPhone]);
    const messages = app.provider.callsOf('sms.send').map((call) => [call.input.to, call.input.message]);
    expect(messages).toEqual([
      [phone, 'The phone number on your account was changed. If you did not do this, contact support at once.'],
    ]);
    expect((await app.session(elsewhere))?.user?.id).toBe(alice.id);
    const byNew = await app.call('POST', '/sign-in/phone-proof', {
      phoneNumber: newPhone,
      proof: await phoneProof(app, newPhone),
    });
    expect(byNew.body.user.id).toBe(alice.id);
    const byOld = await app.call('POST', '/sign-in/phone-proof', {
      phoneNumber: phone,
      proof: await phoneProof(app, phone),
    });
    expect(byOld.body.user.id).not.toBe(alice.id);
  });

  it("the app's choice: other sessions revoked on a change, and no SMS to the old number", async () => {
    const app = await serve({ phoneNumberChange: { revokeOtherSessions: true, notifyOldNumber: false } });
    const alice = await app.emailUser('alice');
    const elsewhere = await app.secondSession();
    await app.link(alice.cookie, phone);
    expect((await app.link(alice.cookie, newPhone)).status).toBe(200);
    expect(await app.session(elsewhere)).toBeNull();
    expect((await app.session(alice.cookie)).user.id).toBe(alice.id);
    expect(app.provider.callsOf('sms.send')).toEqual([]);
  });

  it('a number on another account is refused with 409 PHONE_NUMBER_TAKEN: no takeover, no second account', async () => {
    const app = await serve();
    const alice = await app.emailUser('alice');
    const bob = await app.emailUser('bob');
    await app.link(alice.cookie, phone);
    const refused = await app.link(bob.cookie, phone);
    expect([refused.status, refused.body.code]).toEqual([409, 'PHONE_NUMBER_TAKEN']);
    expect(
      app
        .rows('user')
        .map((row) => [row.id, row.phoneNumber])
        .sort(),
    ).toEqual(
      [
        [alice.id, phone],
        [bob.id, null],
      ].sort(),
    );
    // A phone-only account has it too: linking it elsewhere is refused the same way.
    await app.call('POST', '/sign-in/phone-proof', { phoneNumber: newPhone, proof: await phoneProof(app, newPhone) });
    expect((await app.link(bob.cookie, newPhone)).body.code).toBe('PHONE_NUMBER_TAKEN');
  });

  it('linking needs a session (401) and a proof for the number claimed', async () => {
    const app = await serve();
    const alice = await app.emailUser('alice');
    expect((await app.link(undefined, phone)).status).toBe(401);
    const wrong = await app.link(alice.cookie, newPhone, await phoneProof(app, phone));
    expect([wrong.status, wrong.body.code, wrong.body.reason]).toEqual([403, 'PROOF_REJECTED', 'mismatch']);
    expect(app.rows('user')[0]!.phoneNumber).toBeNull();
  });

  it('a "who is this" dial-in proof is refused at sign-in and at link by default', async () => {
    const app = await serve({}, { dialIn: true });
    const flow = await app.verikit.start({ kind: 'dial-in' });
    const reference = /\*([0-9]+)#$/.exec(String(flow.ussdCode))![1]!;
    await app.verikit.receive({
      id: `dial:${randomUUID()}`,
      event: { type: 'dial-in', phoneNumber: phone, reference },
    });
    const proof = (await app.verikit.issueProof(flow.id)).token;
    const signIn = await app.call('POST', '/sign-in/phone-proof', { phoneNumber: phone, proof });
    expect([signIn.status, signIn.body.code, signIn.body.reason, signIn.cookie]).toEqual([
      403,
      'PROOF_REJECTED',
      'method',
      undefined,
    ]);
    const alice = await app.emailUser('alice');
    const linked = await app.link(alice.cookie, phone, proof);
    expect([linked.status, linked.body.reason]).toEqual([403, 'method']);
    expect(app.rows('user').map((row) => row.phoneNumber)).toEqual([null]);
  });
});
