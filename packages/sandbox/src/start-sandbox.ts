import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { mountControlRoutes } from './control-routes.js';
import type { SandboxEvent, SandboxOptions } from './sandbox-options.js';
import { SandboxOutbox, type OutboxMessage } from './sandbox-outbox.js';
import { SandboxService } from './sandbox-service.js';
import { mountServiceRoutes } from './service-routes.js';
import { resolveSandboxOptions } from './sandbox-options-schema.js';
import { WebhookSender, type WebhookDelivery } from './webhook-sender.js';

/** A running sandbox. */
export interface Sandbox {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The base address to give the provider as `baseUrl` (the same server). */
  readonly baseUrl: string;
  /** The base address to give the provider as `ussdBaseUrl` (the same server). */
  readonly ussdBaseUrl: string;
  /** The port it listens on, useful when 0 was asked for. */
  readonly port: number;
  /** The apiKey the sandbox accepts. */
  readonly apiKey: string;
  /** The webhook signing secret (`whsec_…`), given or generated. */
  readonly webhookSecret: string;
  /** Every message delivered, oldest first. */
  readonly outbox: readonly OutboxMessage[];
  /** Every webhook delivery finished so far. */
  readonly deliveries: readonly WebhookDelivery[];
  /** The last code (phone verification, identity OTP or USSD OTP) sent to `phoneNumber`. */
  lastCode(phoneNumber: string): string | undefined;
  /**
   * Acts as the user who dials the USSD code and enters `otp` (or forces `status`): sends the signed
   * USSD_VERIFICATION webhook and resolves when it was delivered or retries ran out. Rejects when the
   * number has no pending USSD session and no `status` was given.
   */
  dialUssd(phoneNumber: string, input?: { otp?: string; status?: 'success' | 'failed' }): Promise<WebhookDelivery>;
  /** Sets the latency added to every answer. */
  setLatency(ms: number): void;
  /** Listens to requests answered and webhook attempts; returns the unsubscribe function. */
  onEvent(listener: (event: SandboxEvent) => void): () => void;
  /** Clears the outbox, sessions and verifications. */
  reset(): void;
  /** Stops webhook retries and the server. */
  close(): Promise<void>;
}

/** A fresh `whsec_` secret of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * Starts the sandbox: an HTTP server on 127.0.0.1 that behaves like the service (docs/sandbox.md).
 *
 * @example
 * const sandbox = await startSandbox({ webhookUrl: 'http://127.0.0.1:3000/webhooks', webhookSecret });
 * const provider = createGatewayProvider({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, ussdBaseUrl: sandbox.ussdBaseUrl, defaultSender: 'Acme' });
 * // …
 * await sandbox.close();
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const resolved = resolveSandboxOptions(options);
  const webhookSecret = resolved.webhookSecret ?? generateWebhookSecret();
  const listeners = new Set<(event: SandboxEvent) => void>();
  const emit = (event: SandboxEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure is not the sandbox's.
      }
    }
  };
  const latency = { ms: resolved.latencyMs };
  const outbox = new SandboxOutbox(resolved.outboxLimit);
  const webhooks = new WebhookSender({
    url: resolved.webhookUrl,
    secret: webhookSecret,
    retryDelaysMs: resolved.webhookRetryDelaysMs,
    maxRetryAfterMs: resolved.webhookMaxRetryAfterMs,
    timeoutMs: resolved.webhookTimeoutMs,
    emit,
  });
  const service = new SandboxService({
    outbox,
    webhooks,
    identities: resolved.identities,
    codeTtlMs: resolved.codeTtlMs,
    maxAttempts: resolved.maxAttempts,
  });

  const app = new Hono();
  mountServiceRoutes(app, {
    service,
    apiKey: resolved.apiKey,
    latency,
    slowMs: resolved.slowMs,
    get emit() {
      return listeners.size === 0 ? undefined : emit;
    },
  });
  mountControlRoutes(app, { outbox, service, webhooks, identities: resolved.identities, latency });
  app.notFound((c) => c.json({ success: false, message: 'Not found', code: 0, data: null }, 404));

  const server = await new Promise<ServerType>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: resolved.port }, () => resolve(started));
    started.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    baseUrl: url,
    ussdBaseUrl: url,
    port,
    apiKey: resolved.apiKey,
    webhookSecret,
    get outbox() {
      return outbox.messages;
    },
    get deliveries() {
      return webhooks.deliveries;
    },
    lastCode: (phoneNumber) => outbox.lastCode(phoneNumber),
    async dialUssd(phoneNumber, input = {}) {
      const delivery = service.dialUssd({ phoneNumber, ...input });
      if (delivery === undefined) throw new Error('no pending USSD session for this phone number');
      return delivery;
    },
    setLatency(ms) {
      latency.ms = Math.max(0, Math.min(60_000, Math.trunc(ms)));
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    reset() {
      outbox.clear();
      service.reset();
    },
    close() {
      closing ??= (async () => {
        await webhooks.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ('closeAllConnections' in server) server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
