/**
 * Deprecated: the sandbox is now the gateway's fake, `@verikit/gateway/fake`. This package re-exports it
 * under its old names for one release, then goes away.
 *
 * @deprecated Import from `@verikit/gateway/fake` instead: `startSandbox` is `startGatewayFake`, `Sandbox`
 * is `GatewayFake` (its `onEvent` is `onRequest`).
 * @module
 */
import {
  defaultGatewayFakeApiKey,
  gatewayFakeEndpoints,
  gatewayFakePathPrefixes,
  startGatewayFake,
  verifyGatewayFakeWebhook,
  type GatewayFake,
  type GatewayFakeEndpoint,
  type GatewayFakeEvent,
  type GatewayFakeMessage,
  type GatewayFakeMessageKind,
  type GatewayFakeOptions,
} from '@verikit/gateway/fake';

export {
  generateWebhookSecret,
  defaultTestIdentities,
  magicPhoneNumbers,
  magicIdentityNumbers,
  magicBehaviourDescriptions,
  type TestIdentity,
  type MagicBehaviour,
  type WebhookDelivery,
} from '@verikit/gateway/fake';

/** @deprecated Use `GatewayFake` from `@verikit/gateway/fake`; `onEvent` is its `onRequest`. */
export interface Sandbox extends GatewayFake {
  /** @deprecated Use `onRequest`: it hears the same requests and webhook attempts. */
  onEvent(listener: (event: GatewayFakeEvent) => void): () => void;
}
/** @deprecated Use `GatewayFakeOptions` from `@verikit/gateway/fake`. */
export type SandboxOptions = GatewayFakeOptions;
/** @deprecated Use `GatewayFakeEvent` from `@verikit/gateway/fake`. */
export type SandboxEvent = GatewayFakeEvent;
/** @deprecated Use `GatewayFakeMessage` from `@verikit/gateway/fake`. */
export type OutboxMessage = GatewayFakeMessage;
/** @deprecated Use `GatewayFakeMessageKind` from `@verikit/gateway/fake`. */
export type OutboxKind = GatewayFakeMessageKind;
/** @deprecated Use `GatewayFakeEndpoint` from `@verikit/gateway/fake`. */
export type SandboxEndpoint = GatewayFakeEndpoint;

/** @deprecated Use `startGatewayFake` from `@verikit/gateway/fake`. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const fake = await startGatewayFake(options);
  return Object.assign(fake, { onEvent: fake.onRequest });
}
/** @deprecated Use `defaultGatewayFakeApiKey` from `@verikit/gateway/fake`. */
export const defaultSandboxApiKey: string = defaultGatewayFakeApiKey;
/** @deprecated Use `gatewayFakeEndpoints` from `@verikit/gateway/fake`. */
export const sandboxEndpoints: readonly GatewayFakeEndpoint[] = gatewayFakeEndpoints;
/** @deprecated Use `gatewayFakePathPrefixes` from `@verikit/gateway/fake`. */
export const sandboxPathPrefixes: readonly string[] = gatewayFakePathPrefixes;
/** @deprecated Use `verifyGatewayFakeWebhook` from `@verikit/gateway/fake`. */
export const verifySandboxWebhook: typeof verifyGatewayFakeWebhook = verifyGatewayFakeWebhook;
