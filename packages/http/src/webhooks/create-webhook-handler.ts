import type { Verikit } from '@verikit/core';
import { InvalidInputError, type Logger, type ProviderEventV1, type RawWebhookV1 } from '@verikit/provider';
import type { WebhookOptions } from './webhook-options.js';
import { createWebhookReceiver, type ReceiverCreation } from './webhook-receiver.js';

/** Options of {@link createWebhookHandler}: the engine, and how webhooks are signed (see docs/webhooks.md). */
export interface WebhookHandlerOptions extends WebhookOptions {
  /** The engine the verified events are applied to. Its store remembers processed message ids, shared by every instance. */
  verikit: Verikit;
  /** Reads a verified webhook body into an event. Default: the engine's provider's `webhooks.parse`. */
  parse?: (webhook: RawWebhookV1) => ProviderEventV1 | null;
  /** Default: the engine's logger. */
  logger?: Logger;
}

/** A Web-standard webhook endpoint: never throws, every outcome is a response. */
export type WebhookHandler = (request: Request) => Promise<Response>;

/**
 * Creates the webhook endpoint: it verifies the signature, de-duplicates deliveries across
 * instances, parses the provider's event and applies it to the flow it concerns. Checks the options
 * at once, throwing an `InvalidInputError` that names the option (never its value); a missing
 * `secret` (say, an unset environment variable) is refused too, unless `allowUnsigned` says so.
 *
 * @example
 * const webhooks = createWebhookHandler({ verikit, secret: process.env.VERIKIT_WEBHOOK_SECRET });
 * const response = await webhooks(request); // pass the request untouched: the signature covers the raw body
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  return webhookHandlerFor(options, { fieldPrefix: undefined, requireSecret: true });
}

/**
 * {@link createWebhookHandler} with its creation settings: `createFlowHandler` names the options
 * `webhooks.*`, and without any `webhooks` option keeps a route that refuses every webhook.
 */
export function webhookHandlerFor(options: WebhookHandlerOptions, creation: ReceiverCreation): WebhookHandler {
  const { verikit, parse, logger, ...webhookOptions } = options ?? ({} as WebhookHandlerOptions);
  if (typeof verikit !== 'object' || verikit === null || typeof verikit.receive !== 'function') {
    throw new InvalidInputError([{ field: 'verikit', message: 'must be a verikit engine (createVerikit)' }]);
  }
  const providerParse = verikit.provider.webhooks;
  const receiver = createWebhookReceiver(
    {
      receive: (event) => verikit.receive(event),
      parse: parse ?? (providerParse ? (webhook) => providerParse.parse(webhook) : undefined),
      store: verikit.store,
      clock: verikit.clock,
      logger: logger ?? verikit.logger,
    },
    webhookOptions,
    creation,
  );
  return (request) => receiver.handle(request);
}
