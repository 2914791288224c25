/**
 * The verikit provider for the verification and messaging service, over HTTP with ky: USSD OTP,
 * phone verification, BVN/NIN OTP delivery, SMS, WhatsApp, and the USSD_VERIFICATION webhook.
 *
 * @module
 */
export { createGatewayProvider } from './create-gateway-provider.js';
export type {
  GatewayProviderOptions,
  GatewayMapping,
  GatewayHooks,
  GatewayBeforeRequestHook,
  GatewayAfterResponseHook,
  GatewayRequestInfo,
} from './gateway-options.js';
export { gatewayEndpoints, type GatewayOperation, type GatewayEndpoint, type GatewayBase } from './endpoints.js';
