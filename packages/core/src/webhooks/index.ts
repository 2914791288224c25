/**
 * Webhooks in: signature verification (Standard Webhooks, or an HMAC of the body in a header),
 * replay de-duplication, and routing of provider events to flows.
 *
 * @module
 */
export { createWebhookReceiver, type WebhookReceiver, type WebhookReceiverDeps } from './webhook-receiver.js';
export {
  allowUnsignedConsent,
  resolveWebhookOptions,
  webhookDefaults,
  type ResolvedWebhookOptions,
  type WebhookOptions,
  type WebhookScheme,
} from './webhook-options.js';
export type { HmacHeaderScheme } from './hmac-header-verifier.js';
export type { VerifiedWebhook, WebhookVerifier, WebhookVerifierInput } from './webhook-verifier.js';
export type { WebhookResponseBody, WebhookStatus } from './webhook-response.js';
