export { createWebhookHandler, type WebhookHandler, type WebhookHandlerOptions } from './create-webhook-handler.js';
export { allowUnsignedConsent, webhookDefaults, type WebhookOptions, type WebhookScheme } from './webhook-options.js';
export type { HmacHeaderScheme } from './hmac-header-verifier.js';
export type { VerifiedWebhook, WebhookVerifier, WebhookVerifierInput } from './webhook-verifier.js';
export type { WebhookResponseBody, WebhookStatus } from './webhook-response.js';
export { WebhookVerificationError } from './webhook-verification-error.js';
