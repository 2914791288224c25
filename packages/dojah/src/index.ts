/**
 * The verikit provider for Dojah: the identity ladder's match (Validate BVN, or the register's lookup compared inside
 * the provider) and face (selfie verification) on BVN, NIN and vNIN; only booleans leave it.
 *
 * @module \@verikit/dojah
 */
export { createDojahProvider } from './create-dojah-provider.js';
export type { DojahOperation, DojahProviderSettings } from './dojah-settings.js';
