import { randomBytes } from 'node:crypto';
import { fakeParts, runningFake, serveFake, type RunningFake } from '@verikit/provider-utils/fake';
import { Hono, type Context } from 'hono';
import { mountControlRoutes } from './control-routes.js';
import type { GatewayFakeEvent, GatewayFakeOptions } from './gateway-fake-options.js';
import { resolveGatewayFakeOptions } from './gateway-fake-options-schema.js';
import type { GatewayFakeMessage } from './gateway-fake-outbox.js';
import { GatewayFakeService } from './gateway-fake-service.js';
import { mountServiceRoutes } from './service-routes.js';
import { WebhookSender, type WebhookDelivery } from './webhook-sender.js';

/**
 * A running gateway fake. `onRequest` hears every request it answered and every webhook attempt it made;
 * `close` stops webhook retries, then the server.
 */
export interface GatewayFake extends RunningFake<GatewayFakeEvent, GatewayFakeMessage> {
  /** The base address to give the provider as `baseUrl`: every endpoint but USSD initiation (the fake's `url`). */
  readonly baseUrl: string;
  /**
   * The base address to give the provider as `ussdBaseUrl`: a second listener, on a port of its own, that serves
   * USSD initiation and nothing else, as the interface puts it on a different host. A USSD initiation sent to
   * `baseUrl`, or another endpoint sent here, is answered 404.
   */
  readonly ussdBaseUrl: string;
  /** The apiKey the fake accepts. */
  readonly apiKey: string;
  /** The webhook signing secret (`whsec_…`), given or generated. */
  readonly webhookSecret: string;
  /** Wrong codes it allows per phone verification: give the engine the same `maxAttempts`. */
  readonly maxAttempts: number;
  /** Every webhook delivery finished so far. */
  readonly deliveries: readonly WebhookDelivery[];
  /**
   * Acts as the user who dials the USSD code and enters `otp` (or forces `status`): sends the signed
   * USSD_VERIFICATION webhook and resolves when it was delivered or retries ran out. Rejects when the
   * number has no pending USSD session and no `status` was given.
   */
  dialUssd(phoneNumber: string, input?: { otp?: string; status?: 'success' | 'failed' }): Promise<WebhookDelivery>;
}

/** A fresh `whsec_` secret of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Starts the gateway fake: an HTTP server on 127.0.0.1 that behaves like the service (docs/sandbox.md).
 *
 * @example
 * const fake = await startGatewayFake({ webhookUrl: 'http://127.0.0.1:3000/webhooks', webhookSecret });
 * const provider = createGatewayProvider({
 *   apiKey: fake.apiKey,
 *   baseUrl: fake.baseUrl,
 *   ussdBaseUrl: fake.ussdBaseUrl,
 *   defaultSender: 'Acme',
 * });
 * // …
 * await fake.close();
 */
export async function startGatewayFake(options: GatewayFakeOptions = {}): Promise<GatewayFake> {
  const resolved = resolveGatewayFakeOptions(options);
  const webhookSecret = resolved.webhookSecret ?? generateWebhookSecret();
  const parts = fakeParts<GatewayFakeEvent, GatewayFakeMessage>({
    latencyMs: resolved.latencyMs,
    outboxLimit: resolved.outboxLimit,
  });
  const { outbox, latency, listeners, emit } = parts;
  const changes = new Set<() => void>();
  const changed = () => {
    for (const listener of changes) listener();
  };
  const webhooks = new WebhookSender({
    url: resolved.webhookUrl,
    secret: webhookSecret,
    retryDelaysMs: resolved.webhookRetryDelaysMs,
    maxRetryAfterMs: resolved.webhookMaxRetryAfterMs,
    timeoutMs: resolved.webhookTimeoutMs,
    emit,
    onChange: changed,
  });
  const service = new GatewayFakeService({
    outbox,
    webhooks,
    identities: resolved.identities,
    codeTtlMs: resolved.codeTtlMs,
    maxAttempts: resolved.maxAttempts,
    onChange: changed,
  });

  const routes = {
    service,
    apiKey: resolved.apiKey,
    latency,
    // The gateway fake's own bound (120 s), wider than other fakes' 60 s.
    slowMs: resolved.slowMs,
    get emit() {
      return listeners.size === 0 ? undefined : emit;
    },
  };
  const notFound = (c: Context) => c.json({ success: false, message: 'Not found', code: 0, data: null }, 404);
  const app = new Hono();
  mountServiceRoutes(app, routes, 'main');
  mountControlRoutes(app, { outbox, service, webhooks, identities: resolved.identities, latency });
  app.notFound(notFound);
  // The interface's {ussd_base_url} is another host: its own listener, serving USSD initiation only.
  const ussdApp = new Hono();
  mountServiceRoutes(ussdApp, routes, 'ussd');
  ussdApp.notFound(notFound);
  // The main listener binds first: when --port is taken, the error names the port the person gave, whatever
  // happens to hold the port after it (any outbound connection may be using it as its local port).
  const server = await serveFake(app.fetch, resolved.port, {
    name: 'gateway',
    outbox,
    ussdSessions: () => [...service.ussdSessions.values()].toReversed(),
    dialUssd(phoneNumber, outcome) {
      const session = service.ussdSessions.get(phoneNumber);
      if (session === undefined || session.status !== 'pending' || session.expiresAt <= Date.now()) return false;
      void service.dialUssd({ phoneNumber, status: outcome });
      return true;
    },
    webhooks: () => webhooks.log,
    onChange(listener) {
      changes.add(listener);
      return () => changes.delete(listener);
    },
  });
  let ussdServer: Awaited<ReturnType<typeof serveFake>>;
  try {
    ussdServer = await serveFake(ussdApp.fetch, resolved.ussdPort);
  } catch (error) {
    await server.close();
    throw error;
  }
  const running = runningFake({ ...parts, server, clearPending: () => service.reset() });
  let closing: Promise<void> | undefined;
  return Object.assign(running, {
    baseUrl: server.url,
    ussdBaseUrl: ussdServer.url,
    // Without the loopback (the simulator's fast mode), each request still reaches the listener its address names.
    fetch: (request: Request) =>
      new URL(request.url).origin === ussdServer.url ? ussdServer.fetch(request) : server.fetch(request),
    apiKey: resolved.apiKey,
    webhookSecret,
    maxAttempts: resolved.maxAttempts,
    deliveries: webhooks.deliveries,
    async dialUssd(phoneNumber: string, input: { otp?: string; status?: 'success' | 'failed' } = {}) {
      const delivery = service.dialUssd({ phoneNumber, ...input });
      if (delivery === undefined) throw new Error('no pending USSD session for this phone number');
      return delivery;
    },
    close() {
      closing ??= webhooks.close().then(() => Promise.all([server.close(), ussdServer.close()]).then(() => undefined));
      return closing;
    },
  });
}
