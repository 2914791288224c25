import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth, type AuthConfig } from '@auth/core';
import { UnstorageAdapter } from '@auth/unstorage-adapter';
import { createVerikit, ProofRejectedError, type Verikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { createStorage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import { linkPhone, PhoneNumberTakenError, phoneProofProvider } from './authjs-phone.js';

const phone = '+2348012345678';
const newPhone = '+2348012345679';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = undefined;
});

async function bodyOf(request: IncomingMessage): Promise<Buffer<ArrayBuffer>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A real Auth.js instance (`@auth/core`) with the Unstorage adapter on memory, the recipe's provider, and an app route that links a phone; over HTTP. */
async function serveAuthJs(dialIn = false) {
  const provider = Object.assign(
    createTestProviderV1(),
    dialIn
      ? {
          dialIn: {
            serviceCode: '*384*1234#',
            parseSession: () => {
              throw new Error('not used');
            },
            answer: () => ({ body: '', contentType: 'text/plain' }),
          },
        }
      : {},
  );
  const verikit: Verikit = createVerikit({ provider, secret: 'an-engine-secret-of-32-characters-or-more' });
  const storage = createStorage();
  const adapter = UnstorageAdapter(storage);
  const links = new Map<string, string>();
  const config: AuthConfig = {
    adapter,
    secret: 'an-auth-js-secret-that-is-long-enough-for-tests',
    trustHost: true,
    basePath: '/auth',
    // Auth.js signs credentials in with JWT sessions only; the adapter keeps users, accounts and email tokens.
    session: { strategy: 'jwt' },
    providers: [
      {
        id: 'email',
        type: 'email',
        name: 'Email',
        from: 'auth@example.com',
        maxAge: 600,
        options: {},
        sendVerificationRequest: async ({ identifier, url }) => {
          links.set(identifier, url);
        },
      },
      phoneProofProvider(verikit, adapter),
    ],
    callbacks: { session: ({ session, token }) => ({ ...session, user: { ...session.user, id: token.sub! } }) },
  };
  server = createServer(async (incoming, outgoing) => {
    const url = `http://${incoming.headers.host}${incoming.url}`;
    const body = incoming.method === 'GET' ? undefined : await bodyOf(incoming);
    const request = new Request(url, {
      method: incoming.method,
      headers: incoming.headers as Record<string, string>,
      ...(body === undefined ? {} : { body: new Uint8Array(body) }),
    });
    let response: Response;
    if (new URL(url).pathname.startsWith('/auth/')) response = await Auth(request, config);
    else response = await linkRoute(request);
    outgoing.statusCode = response.status;
    response.headers.forEach((value, name) => {
      if (name !== 'set-cookie') outgoing.setHeader(name, value);
    });
    outgoing.setHeader('set-cookie', response.headers.getSetCookie());
    outgoing.end(Buffer.from(await response.arrayBuffer()));
  });
  /** The app's own route: the session names the user; the recipe links the phone. */
  async function linkRoute(request: Request): Promise<Response> {
    const sessionUrl = new URL('/auth/session', request.url);
    const session = (await (
      await Auth(new Request(sessionUrl, { headers: { cookie: request.headers.get('cookie') ?? '' } }), config)
    ).json()) as { user?: { id: string } } | null;
    if (session?.user === undefined) return Response.json({ code: 'UNAUTHORIZED' }, { status: 401 });
    const { phoneNumber, proof } = (await request.json()) as { phoneNumber: string; proof: string };
    try {
      const linked = await linkPhone(verikit, adapter, {
        userId: session.user.id,
        phoneNumber,
        proof,
        notifyOldNumber: { message: 'The phone number on your account was changed.', from: 'Shop' },
      });
      return Response.json(linked);
    } catch (error) {
      if (error instanceof PhoneNumberTakenError) return Response.json({ code: error.code }, { status: 409 });
      if (ProofRejectedError.isInstance(error)) return Response.json({ reason: error.reason }, { status: 403 });
      throw error;
    }
  }
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  /** A browser: a cookie jar over fetch, redirects not followed. */
  function browser() {
    const jar = new Map<string, string>();
    async function go(path: string, init: RequestInit = {}) {
      const headers = new Headers(init.headers);
      headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
      const response = await fetch(path.startsWith('http') ? path : `${origin}${path}`, {
        ...init,
        headers,
        redirect: 'manual',
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        jar.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
      return response;
    }
    async function form(path: string, fields: Record<string, string>) {
      const { csrfToken } = (await (await go('/auth/csrf')).json()) as { csrfToken: string };
      return go(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrfToken, callbackUrl: origin, ...fields }),
      });
    }
    return {
      /** Signs in by email link, as Auth.js's email provider does: the link it "sent" is followed. */
      async signInByEmail(email: string) {
        expect((await form('/auth/signin/email', { email })).status).toBe(302);
        expect((await go(links.get(email)!)).status).toBe(302);
      },
      /** Signs in by phone proof: the Location of Auth.js's answer (an error names `CredentialsSignin`). */
      async signInByPhone(phoneNumber: string, proof: string) {
        return (await form('/auth/callback/phone-proof', { phoneNumber, proof })).headers.get('location') ?? '';
      },
      async session() {
        return (await (await go('/auth/session')).json()) as { user?: { id: string; email: string } } | null;
      },
      async link(phoneNumber: string, proof: string) {
        const response = await go('/api/phone/link', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ phoneNumber, proof }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      },
    };
  }
  /** A phone flow verified with the test provider's code, and its proof. */
  async function proofFor(phoneNumber: string) {
    const { id } = await verikit.start({ kind: 'phone', phoneNumber });
    await verikit.send(id, { type: 'submit-code', code: provider.lastCode(phoneNumber)! });
    return (await verikit.issueProof(id)).token;
  }
  const users = async () =>
    (await storage.getKeys()).filter(
      (key) =>
        key.startsWith('user:') &&
        !key.startsWith('user:email') &&
        !key.startsWith('user:account') &&
        !key.startsWith('user:session') &&
        !key.startsWith('user:token'),
    );
  return { verikit, provider, storage, browser, proofFor, users };
}

describe('Auth.js (@auth/core) with the phone-proof recipe, over HTTP (issue 37)', () => {
  it('an email user links a phone (one account, phone set), changes it (the old number told), and signs in by phone', async () => {
    const app = await serveAuthJs();
    const alice = app.browser();
    await alice.signInByEmail('alice@example.com');
    const aliceId = (await alice.session())!.user!.id;
    expect(await alice.link(phone, await app.proofFor(phone))).toEqual({
      status: 200,
      body: { phoneNumber: phone, previousPhoneNumber: null },
    });
    expect(await alice.link(newPhone, await app.proofFor(newPhone))).toEqual({
      status: 200,
      body: { phoneNumber: newPhone, previousPhoneNumber: phone },
    });
    expect(app.provider.callsOf('sms.send').map((call) => [call.input.to, call.input.message])).toEqual([
      [phone, 'The phone number on your account was changed.'],
    ]);
    const onPhone = app.browser();
    expect(await onPhone.signInByPhone(newPhone, await app.proofFor(newPhone))).not.toContain('error=');
    expect((await onPhone.session())!.user!.id).toBe(aliceId);
    expect(await app.users()).toHaveLength(1);
    // The old number is no longer Alice's: it signs up a phone-only user of its own.
    const old = app.browser();
    await old.signInByPhone(phone, await app.proofFor(phone));
    expect((await old.session())!.user!.id).not.toBe(aliceId);
  });

  it('a number on another account is refused (409), and a refused or replayed proof signs no one in', async () => {
    const app = await serveAuthJs();
    const alice = app.browser();
    await alice.signInByEmail('alice@example.com');
    await alice.link(phone, await app.proofFor(phone));
    const bob = app.browser();
    await bob.signInByEmail('bob@example.com');
    expect(await bob.link(phone, await app.proofFor(phone))).toEqual({
      status: 409,
      body: { code: 'PHONE_NUMBER_TAKEN' },
    });
    const proof = await app.proofFor(newPhone);
    const stranger = app.browser();
    expect(await stranger.signInByPhone(phone, proof)).toContain('error=CredentialsSignin');
    expect(await stranger.session()).toBeNull();
  });

  it('a "who is this" dial-in proof is refused at sign-in by default', async () => {
    const app = await serveAuthJs(true);
    const flow = await app.verikit.start({ kind: 'dial-in' });
    const reference = /\*([0-9]+)#$/.exec(String(flow.ussdCode))![1]!;
    await app.verikit.receive({ id: `dial:${flow.id}`, event: { type: 'dial-in', phoneNumber: phone, reference } });
    const proof = (await app.verikit.issueProof(flow.id)).token;
    const someone = app.browser();
    expect(await someone.signInByPhone(phone, proof)).toContain('error=CredentialsSignin');
    expect(await someone.session()).toBeNull();
  });
});
