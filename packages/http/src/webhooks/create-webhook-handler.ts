import type { Clock, Verikit } from '@verikit/core';
import { systemClock } from '@verikit/core/internal';
import {
  InvalidInputError,
  defaultLogger,
  type Logger,
  type ProviderEventV1,
  type RawWebhookV1,
} from '@verikit/provider';
import { responseOf, webRouteRequest } from '../routes/route-request.js';
import type { WebhookOptions } from './webhook-options.js';
import { webhookRouteWith, type WebhookRoute, type WebhookRouteCreation } from './webhook-route.js';

/** Options of {@link createWebhookHandler}: the engine, and how webhooks are signed (see docs/webhooks.md). */
export interface WebhookHandlerOptions extends WebhookOptions {
  /** The engine the verified events are applied to. It remembers processed delivery ids in its store, shared by every instance. */
  verikit: Verikit;
  /**
   * Reads a verified webhook body into an event. Default: the engine's provider's `webhooks.parse`
   * (`verikit.webhooks`); required when the provider sends no webhooks of its own.
   */
  parse?: (webhook: RawWebhookV1) => ProviderEventV1 | null;
  /** Where webhook timestamps are checked against. Default: the system clock (give the engine's, in tests). */
  clock?: Clock;
  /** Where refusals (unverified, malformed) and misconfigurations are logged; the engine logs what it applied. Default: `defaultLogger` (warnings and errors to the console). */
  logger?: Logger;
}

/** A Web-standard webhook endpoint: never throws, every outcome is a response. */
export type WebhookHandler = (request: Request) => Promise<Response>;

/**
 * Creates the webhook endpoint: it verifies the signature, parses the provider's event and hands it
 * with its delivery id to the engine's `receive`, which applies it once across instances. Checks
 * the options at once, throwing an `InvalidInputError` that names the option (never its value): a
 * missing `secret` (say, an unset environment variable) is refused unless `allowUnsigned` says so,
 * and so is an engine whose provider sends no webhooks (no route is needed then).
 *
 * @example
 * const webhooks = createWebhookHandler({ verikit, secret: process.env.VERIKIT_WEBHOOK_SECRET });
 * const response = await webhooks(request); // pass the request untouched: the signature covers the raw body
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  return webHandlerOf(webhookRoute(options, { fieldPrefix: undefined, requireSecret: true }));
}

/** A webhook route as a Web handler: what {@link createWebhookHandler} returns. */
export function webHandlerOf(route: WebhookRoute): WebhookHandler {
  return async (request) => responseOf(await route(webRouteRequest(request, undefined)));
}

/**
 * The webhook endpoint of {@link createWebhookHandler} as a route of a route table, with its creation settings:
 * `createFlowHandler` names the options `webhooks.*`, and without any `webhooks` option keeps a route that refuses
 * every webhook.
 */
export function webhookRoute(options: WebhookHandlerOptions, creation: WebhookRouteCreation): WebhookRoute {
  const { verikit, parse, clock, logger, ...webhookOptions } = options ?? ({} as WebhookHandlerOptions);
  if (typeof verikit !== 'object' || verikit === null || typeof verikit.receive !== 'function') {
    throw new InvalidInputError([{ field: 'verikit', message: 'must be a verikit engine (createVerikit)' }]);
  }
  const webhooks = verikit.webhooks;
  const parser = parse ?? (webhooks ? (webhook: RawWebhookV1) => webhooks.parse(webhook) : undefined);
  if (parser === undefined) {
    throw new InvalidInputError([
      {
        field: 'verikit',
        message:
          "has a provider that sends no webhooks (no webhooks capability): leave the webhook route out, or pass parse to read the sender's webhooks",
      },
    ]);
  }
  return webhookRouteWith(
    {
      receive: (inbound, receiveOptions) => verikit.receive(inbound, receiveOptions),
      parse: parser,
      clock: clock ?? systemClock,
      logger: logger ?? defaultLogger,
    },
    webhookOptions,
    creation,
  );
}
