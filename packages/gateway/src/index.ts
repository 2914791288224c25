/**
 * The verikit provider for the verification and messaging service, over HTTP with ky: USSD OTP,
 * phone verification, BVN/NIN OTP delivery, SMS, WhatsApp, and the USSD_VERIFICATION webhook. The
 * package also owns the service's wire format: its endpoint table and its webhook body, which its fake
 * (`@verikit/gateway/fake`) serves and sends.
 *
 * @module
 */
export { createGatewayProvider } from './create-gateway-provider.js';
export type {
  GatewayProviderSettings,
  GatewayProviderOptions,
  GatewayMapping,
  GatewayHooks,
  GatewayBeforeRequestHook,
  GatewayAfterResponseHook,
  GatewayRequestInfo,
} from './gateway-settings.js';
/** @public The service's wire format (paths and bases), for a proxy or a fake of one's own. */
export {
  gatewayEndpoints,
  gatewayPathPrefixes,
  type GatewayOperation,
  type GatewayEndpoint,
  type GatewayBase,
} from './endpoints.js';
export { createWebhookParser as createGatewayWebhookParser, type GatewayWebhookBody } from './webhook-parser.js';
