import { betterAuth } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { SqlJsDialect } from 'kysely-wasm';
import initSqlJs from 'sql.js';
import { verikitAuth } from '@verikit/better-auth';
import { createVerikit, type ProviderV1 } from '@verikit/core';

/** What the app is built on: the verikit provider, and where Better Auth and the flows are reached. */
export interface AuthSettings {
  /** Any verikit provider: the gateway (here its sandbox), Termii, Twilio, a composition. */
  readonly provider: ProviderV1;
  /** The engine's secret, 32 characters or more (flow secrets, proofs and keyed hashes derive from it). */
  readonly verikitSecret: string;
  /** Better Auth's secret, 32 characters or more. */
  readonly authSecret: string;
  /** Where the app is served, `http://localhost:3000`. */
  readonly baseURL: string;
  /** The secret the provider signs its webhooks with, when it sends any (USSD results). */
  readonly webhookSecret?: string;
}

/**
 * Better Auth with the verikit plugin, on SQLite: users sign up and in by phone through verikit flows and
 * proofs, or by email and password and then add (or change) a verified phone, and attach a verified BVN. docs/integrations/better-auth.md shows this file.
 */
export async function createAuth(settings: AuthSettings) {
  const verikit = createVerikit({ provider: settings.provider, secret: settings.verikitSecret });
  const SQL = await initSqlJs();
  const options = {
    baseURL: settings.baseURL,
    secret: settings.authSecret,
    database: { dialect: new SqlJsDialect({ database: new SQL.Database() }), type: 'sqlite' as const },
    // Email accounts too: a user who signed up by email adds a verified phone (POST /phone-number/link-proof).
    emailAndPassword: { enabled: true },
    plugins: [
      verikitAuth({
        verikit,
        flowHandler: settings.webhookSecret === undefined ? {} : { webhooks: { secret: settings.webhookSecret } },
        onSignIn: async ({ user, isNewUser }) => {
          if (isNewUser) await verikit.sendSms({ from: 'Acme', to: user.phoneNumber, message: 'Welcome to Acme!' });
        },
        // A changed number: the old one is told once by SMS (the plugin's words, from Acme).
        phoneNumberChange: { notifyOldNumber: { from: 'Acme' } },
      }),
    ],
  };
  // Better Auth's own migrations make its tables and the plugin's (an app runs `npx @better-auth/cli migrate`).
  await (await getMigrations(options)).runMigrations();
  const auth = betterAuth(options);
  /** The identities attached to a user, as the plugin keeps them: the type and the masked number only. */
  const identities = async (userId: string) => {
    const { adapter } = await auth.$context;
    const rows = await adapter.findMany<{ idType: string; numberMasked: string }>({
      model: 'identityVerification',
      where: [{ field: 'userId', value: userId }],
    });
    return rows.map((row) => ({ idType: row.idType, number: row.numberMasked }));
  };
  return { auth, verikit, identities };
}
