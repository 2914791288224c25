import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerikit, type Verikit } from '@verikit/core';
import { answerClientErrors, toNodeHandler } from '@verikit/http';
import { AccountStore } from './accounts.js';
import { createSignupApp } from './create-app.js';
import { PageFiles } from './page-files.js';
import { providerFromEnv, type ProviderSetup } from './provider-from-env.js';
import { settingsFromEnv, type Env } from './settings-from-env.js';

/** A running signup server. */
export interface SignupServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly verikit: Verikit;
  readonly accounts: AccountStore;
  /** The provider it runs on: its `sandbox` or `testProvider` when it is one of those. */
  readonly setup: ProviderSetup;
  close(): Promise<void>;
}

/** Options of {@link startSignupServer}. */
export interface StartSignupServerOptions {
  /** Where the settings and the provider come from. Default `process.env`. */
  readonly env?: Env;
  /** The built page (see build-page.ts). */
  readonly pageDir: string;
  readonly onError?: (error: unknown) => void;
}

/**
 * Starts the app on node:http: listens first (the sandbox needs the address its webhooks go to),
 * then sets up the provider named by the environment and the engine.
 */
export async function startSignupServer(options: StartSignupServerOptions): Promise<SignupServer> {
  const env = options.env ?? process.env;
  const settings = settingsFromEnv(env);
  const page = await PageFiles.load(options.pageDir);
  let handle = (_request: Request, _env?: unknown): Promise<Response> =>
    Promise.resolve(Response.json({ error: { code: 'starting' } }, { status: 503 }));
  const server = answerClientErrors(createServer(toNodeHandler((request, env) => handle(request, env))));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  let setup: ProviderSetup;
  try {
    setup = await providerFromEnv(env, {
      webhookUrl: `${url}/api/verify/webhooks`,
      ...(settings.policies.maxAttempts === undefined ? {} : { maxAttempts: settings.policies.maxAttempts }),
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const verikit = createVerikit({ provider: setup.provider, secret: settings.secret, policies: settings.policies });
  setup.connect(verikit);
  const accounts = new AccountStore();
  const app = createSignupApp({
    verikit,
    accounts,
    webhookSecret: setup.webhookSecret,
    page,
    onError: options.onError,
  });
  // The node bindings go along: the flow API reads the client address from them.
  handle = (request, env) => Promise.resolve(app.fetch(request, env));

  let closing: Promise<void> | undefined;
  return {
    url,
    verikit,
    accounts,
    setup,
    close() {
      closing ??= Promise.all([setup.close(), stop()]).then(() => undefined);
      return closing;
    },
  };
}
