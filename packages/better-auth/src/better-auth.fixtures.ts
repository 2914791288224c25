import { betterAuth, type BetterAuthOptions } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { SqlJsDialect } from 'kysely-wasm';
import initSqlJs from 'sql.js';
import { createVerikit, type ProviderV1, type SendGuardOptions, type Verikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { expect } from 'vitest';
import { verikitAuth } from './verikit-auth.js';
import type { VerikitAuthOptions } from './verikit-auth-options.js';

/** The carrier's dial-in service code of {@link withDialIn}. */
const serviceCode = '*384*1234#';

/** The test provider with a dial-in capability (the carrier's session requests are fed to `verikit.receive`). */
function withDialIn(provider: ReturnType<typeof createTestProviderV1>) {
  const dialIn: NonNullable<ProviderV1['dialIn']> = {
    serviceCode,
    parseSession: () => {
      throw new Error('not used: the tests hand dials to verikit.receive');
    },
    answer: (kind, screen) => ({ body: `${kind} ${screen}`, contentType: 'text/plain' }),
  };
  return Object.assign(provider, { dialIn });
}

/** The app's numbers users send to, with `inbound`. */
export const inboundSmsNumber = '+15005550006';
const inboundWhatsAppNumber = '+14155238886';

/**
 * A real Better Auth instance on SQLite (sql.js: SQLite compiled to WebAssembly, so no native build and no
 * download on Node 20; docs/decisions/1020-better-auth-plugin-on-proofs.md), its tables made by Better
 * Auth's own migrations, with the verikit plugin on a verikit engine and the scriptable test provider. `setup`
 * gives the engine's send guard and Better Auth's `advanced` options; `inbound`, a provider that receives the
 * messages users send (SMS and WhatsApp, for a plan's inbound steps).
 */
export async function betterAuthWithVerikit(
  options: Partial<VerikitAuthOptions> = {},
  setup: {
    guard?: SendGuardOptions;
    advanced?: BetterAuthOptions['advanced'];
    dialIn?: boolean;
    inbound?: boolean;
  } = {},
) {
  const SQL = await initSqlJs();
  const database = new SQL.Database();
  const inboundNumbers = { sms: inboundSmsNumber, whatsapp: inboundWhatsAppNumber };
  const provider =
    setup.dialIn === true
      ? withDialIn(createTestProviderV1())
      : createTestProviderV1(setup.inbound === true ? { channels: ['sms', 'whatsapp'], inboundNumbers } : {});
  const verikit: Verikit = createVerikit({
    provider,
    secret: 'a-test-secret-of-32-characters-or-more!!',
    guard: setup.guard,
  });
  const authOptions = {
    baseURL: 'http://localhost:3000',
    secret: 'better-auth-secret-that-is-long-enough-for-tests',
    database: { dialect: new SqlJsDialect({ database }), type: 'sqlite' as const },
    emailAndPassword: { enabled: true },
    rateLimit: { enabled: false },
    advanced: setup.advanced,
    plugins: [verikitAuth({ verikit, ...options })],
  };
  const { runMigrations } = await getMigrations(authOptions);
  await runMigrations();
  const auth = betterAuth(authOptions);
  /** Every row of a table, as SQLite holds it. */
  const rows = (table: string) => {
    const [result] = database.exec(`select * from "${table}"`);
    return (result?.values ?? []).map((values) =>
      Object.fromEntries(result!.columns.map((column, index) => [column, values[index]])),
    );
  };
  return { auth, verikit, provider, database, rows };
}

/** A phone flow verified with the code the test provider sent, and a proof of it. */
export async function phoneProof(
  env: { verikit: Verikit; provider: ReturnType<typeof createTestProviderV1> },
  phoneNumber: string,
) {
  const { id } = await env.verikit.start({ kind: 'phone', phoneNumber });
  await env.verikit.send(id, { type: 'submit-code', code: env.provider.lastCode(phoneNumber)! });
  return (await env.verikit.issueProof(id)).token;
}

/** Where {@link postToAuth} sends: Better Auth's handler under its default `/api/auth` path. */
const authBase = 'http://localhost:3000/api/auth';

/**
 * POSTs `body` as JSON (none when undefined) to Better Auth's `path` from the app's own origin, with `headers` added;
 * gives back the status, the JSON answer and the session cookie it set, if any (`name=value`).
 */
export async function postToAuth(
  env: { auth: { handler: (request: Request) => Promise<Response> } },
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await env.auth.handler(
    new Request(`${authBase}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:3000', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  const sessionCookie = response.headers.getSetCookie().find((line) => line.startsWith('better-auth.session_token='));
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    cookie: sessionCookie?.split(';')[0],
  };
}

/**
 * Signs in with `proof` for `phoneNumber` as an attacker would, and expects the refusal a proof of a method the app
 * does not accept gets (403 `PROOF_REJECTED`, reason `method`), with no session cookie, no user and no session.
 */
export async function expectProofMethodRefused(
  env: Awaited<ReturnType<typeof betterAuthWithVerikit>>,
  phoneNumber: string,
  proof: string,
): Promise<void> {
  const takeover = await postToAuth(env, '/sign-in/phone-proof', { phoneNumber, proof });
  expect([takeover.status, takeover.body.code, takeover.body.reason, takeover.cookie]).toEqual([
    403,
    'PROOF_REJECTED',
    'method',
    undefined,
  ]);
  expect(env.rows('user')).toHaveLength(0);
  expect(env.rows('session')).toHaveLength(0);
}
