/**
 * The sandbox: an HTTP server on 127.0.0.1 that behaves like the service, for local development and tests.
 *
 * @module
 */
export { startSandbox, generateWebhookSecret, type Sandbox } from './start-sandbox.js';
export type { SandboxOptions, SandboxEvent } from './sandbox-options.js';
export { defaultSandboxApiKey } from './sandbox-options-schema.js';
export type { OutboxMessage, OutboxKind } from './sandbox-outbox.js';
export type { WebhookDelivery } from './webhook-sender.js';
export { defaultTestIdentities, type TestIdentity } from './test-identities.js';
export {
  magicPhoneNumbers,
  magicIdentityNumbers,
  magicBehaviourDescriptions,
  type MagicBehaviour,
} from './magic-numbers.js';
export { sandboxEndpoints, sandboxPathPrefixes, type SandboxEndpoint } from './sandbox-endpoints.js';
export { verifySandboxWebhook } from './verify-sandbox-webhook.js';
