/**
 * The verikit provider for Termii: phone verification on Termii's token API (SMS, voice and WhatsApp codes;
 * Termii's pin id as the requestId), SMS and WhatsApp on its messaging API, the DND route for codes by
 * default. No USSD and no BVN/NIN. A fake of Termii's API is on the `@verikit/termii/fake` subpath.
 *
 * @module \@verikit/termii
 */
export { createTermiiProvider } from './create-termii-provider.js';
export type { TermiiProviderSettings, TermiiOperation, TermiiRoute, TermiiSmsCodes } from './termii-settings.js';
export { termiiWebhookScheme } from './termii-delivery-report.js';
