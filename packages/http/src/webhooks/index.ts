export { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from './create-webhook-handler.js';
/** @public The opt-out an app spells out to take unsigned webhooks, and the defaults it tunes. */
export { allowUnsignedConsent, webhookDefaults, type WebhookOptions, type WebhookScheme } from './webhook-options.js';
export type { HmacHeaderScheme } from './hmac-header-verifier.js';
export type { VerifiedWebhook, WebhookVerifier, WebhookVerifierInput } from './webhook-verifier.js';
export type { WebhookResponseBody, WebhookStatus } from './webhook-response.js';
/** @public Thrown by a custom verifier; an app's own route may catch it by class. */
export { WebhookVerificationError } from './webhook-verification-error.js';
