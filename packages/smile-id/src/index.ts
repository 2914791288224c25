/**
 * verikit provider for Smile ID: the identity ladder's `match` (Enhanced KYC) and `face` (Biometric KYC) on BVN, NIN
 * and vNIN. The fake of Smile ID's API is at `@verikit/smile-id/fake`.
 *
 * @module
 */
export { createSmileIdProvider } from './create-smile-id-provider.js';
export type { SmileIdOperation, SmileIdProviderSettings } from './smile-id-settings.js';
export { isSmileIdSignature, smileIdSignature } from './smile-id-signature.js';
