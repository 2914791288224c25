import { randomUUID } from 'node:crypto';
import type { Verikit } from '@verikit/core';
import { createGatewayProvider } from '@verikit/gateway';
import { generateWebhookSecret, startGatewayFake, type GatewayFake } from '@verikit/gateway/fake';
import { InvalidInputError, type ProviderV1 } from '@verikit/provider';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import type { Env } from './settings-from-env.js';

/** The provider the server runs on, and what goes with it. */
export interface ProviderSetup {
  /** `sandbox`, `test` or `gateway`: printed at start. */
  readonly name: string;
  readonly provider: ProviderV1;
  /** The secret the webhook route checks signatures with; undefined when the provider sends no webhooks. */
  readonly webhookSecret: string | undefined;
  /** The sandbox, when the server started one (read its outbox, act as the user who dials). */
  readonly sandbox?: GatewayFake;
  /** The test double, when `VERIKIT_PROVIDER=test`. */
  readonly testProvider?: TestProviderV1;
  /** Called once the engine exists: the test double hands its USSD results to it directly. */
  connect(verikit: Verikit): void;
  close(): Promise<void>;
}

/** Where the server can be reached: the sandbox sends its signed webhooks there. */
export interface ProviderContext {
  readonly webhookUrl: string;
  /** The engine's `maxAttempts`, when set: the sandbox allows as many wrong codes (with fewer, its last try would lock the flow early). */
  readonly maxAttempts?: number;
}

/** One entry per `VERIKIT_PROVIDER` value. A new provider package (termii, twilio) is one more entry here. */
const providers: Readonly<Record<string, (env: Env, context: ProviderContext) => Promise<ProviderSetup>>> = {
  sandbox: sandboxSetup,
  test: async () => testSetup(),
  gateway: async (env) => gatewaySetup(env),
};

/**
 * The one seam between the app and the verification service: the provider named by
 * `VERIKIT_PROVIDER` (default `sandbox`), configured from its own variables. Nothing else in the
 * app knows which provider it runs on.
 *
 * - `sandbox`: starts the sandbox in-process and talks to it with the gateway provider over HTTP;
 *   its signed USSD webhooks come back to `context.webhookUrl`.
 * - `test`: the in-memory test double (code `123456`, no network).
 * - `gateway`: the real service: `GATEWAY_API_KEY`, `GATEWAY_BASE_URL`, `GATEWAY_USSD_BASE_URL`,
 *   `GATEWAY_SENDER`, and `VERIKIT_WEBHOOK_SECRET` (the secret its webhooks are signed with).
 */
export async function providerFromEnv(env: Env, context: ProviderContext): Promise<ProviderSetup> {
  const name = env.VERIKIT_PROVIDER === undefined || env.VERIKIT_PROVIDER === '' ? 'sandbox' : env.VERIKIT_PROVIDER;
  const setup = Object.hasOwn(providers, name) ? providers[name] : undefined;
  if (setup === undefined) {
    throw new InvalidInputError([
      { field: 'VERIKIT_PROVIDER', message: `must be one of ${Object.keys(providers).join(', ')}` },
    ]);
  }
  return setup(env, context);
}

async function sandboxSetup(_env: Env, context: ProviderContext): Promise<ProviderSetup> {
  const webhookSecret = generateWebhookSecret();
  // One quick retry: the webhook route is in this process, so a failed delivery is worth one more try only.
  const sandbox = await startGatewayFake({
    webhookUrl: context.webhookUrl,
    webhookSecret,
    webhookRetryDelaysMs: [200],
    ...(context.maxAttempts === undefined ? {} : { maxAttempts: context.maxAttempts }),
  });
  const provider = createGatewayProvider({
    apiKey: sandbox.apiKey,
    baseUrl: sandbox.baseUrl,
    ussdBaseUrl: sandbox.ussdBaseUrl,
    defaultSender: 'Acme',
  });
  return { name: 'sandbox', provider, webhookSecret, sandbox, connect: () => undefined, close: () => sandbox.close() };
}

function testSetup(): ProviderSetup {
  const testProvider = createTestProviderV1({ defaultSender: 'Acme' });
  let unsubscribe = (): void => undefined;
  return {
    name: 'test',
    provider: testProvider,
    webhookSecret: undefined,
    testProvider,
    connect(verikit) {
      unsubscribe = testProvider.onEvent((event) => verikit.receive({ id: randomUUID(), event }));
    },
    async close() {
      unsubscribe();
    },
  };
}

function gatewaySetup(env: Env): ProviderSetup {
  const required = (name: string): string => {
    const value = env[name];
    if (value === undefined || value === '')
      throw new InvalidInputError([{ field: name, message: 'is required with VERIKIT_PROVIDER=gateway' }]);
    return value;
  };
  const provider = createGatewayProvider({
    apiKey: required('GATEWAY_API_KEY'),
    baseUrl: required('GATEWAY_BASE_URL'),
    ussdBaseUrl: required('GATEWAY_USSD_BASE_URL'),
    defaultSender: env.GATEWAY_SENDER === '' ? undefined : env.GATEWAY_SENDER,
  });
  return {
    name: 'gateway',
    provider,
    webhookSecret: required('VERIKIT_WEBHOOK_SECRET'),
    connect: () => undefined,
    close: async () => undefined,
  };
}
