import { betterAuth, type BetterAuthOptions } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { SqlJsDialect } from 'kysely-wasm';
import initSqlJs from 'sql.js';
import { createVerikit, type SendGuardOptions, type Verikit } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { verikitAuth } from './verikit-auth.js';
import type { VerikitAuthOptions } from './verikit-auth-options.js';

/**
 * A real Better Auth instance on SQLite (sql.js: SQLite compiled to WebAssembly, so no native build and no
 * download on Node 20; docs/decisions/1020-better-auth-plugin-on-proofs.md), its tables made by Better
 * Auth's own migrations, with the verikit plugin on a verikit engine and the scriptable test provider. `setup`
 * gives the engine's send guard and Better Auth's `advanced` options.
 */
export async function betterAuthWithVerikit(
  options: Partial<VerikitAuthOptions> = {},
  setup: { guard?: SendGuardOptions; advanced?: BetterAuthOptions['advanced'] } = {},
) {
  const SQL = await initSqlJs();
  const database = new SQL.Database();
  const provider = createTestProviderV1();
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
