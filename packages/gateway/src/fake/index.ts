/**
 * A fake of the verification and messaging service for tests and development: `startGatewayFake()`, an
 * HTTP server on 127.0.0.1 that answers the seven endpoints as the service does, keeps an outbox, plays
 * the user who dials a USSD code and sends signed USSD_VERIFICATION webhooks (docs/sandbox.md). Loads
 * hono; the provider itself does not.
 *
 * @module \@verikit/gateway/fake
 */
export { startGatewayFake, generateWebhookSecret, type GatewayFake } from './start-gateway-fake.js';
export type { GatewayFakeOptions, GatewayFakeEvent } from './gateway-fake-options.js';
export { defaultGatewayFakeApiKey } from './gateway-fake-options-schema.js';
export type { GatewayFakeMessage, GatewayFakeMessageKind } from './gateway-fake-outbox.js';
export type { WebhookDelivery } from './webhook-sender.js';
export { defaultTestIdentities, type TestIdentity } from './test-identities.js';
/** @public The fake's magic numbers, for tests that drive a failure on purpose. */
export {
  magicPhoneNumbers,
  magicIdentityNumbers,
  magicBehaviourDescriptions,
  type MagicBehaviour,
} from './gateway-magic-numbers.js';
export { gatewayFakeEndpoints, gatewayFakePathPrefixes, type GatewayFakeEndpoint } from './gateway-fake-endpoints.js';
export { verifyGatewayFakeWebhook } from './verify-gateway-fake-webhook.js';
