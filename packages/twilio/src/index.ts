/**
 * The verikit provider for Twilio: phone verification on Twilio Verify v2 (sms, call, whatsapp), SMS and
 * WhatsApp on Programmable Messaging, and a verifier of `X-Twilio-Signature` for callbacks. No USSD and no
 * BVN/NIN. A fake of Twilio's API is on the `@verikit/twilio/fake` subpath.
 *
 * @module \@verikit/twilio
 */
export { createTwilioProvider } from './create-twilio-provider.js';
export type { TwilioProviderSettings, TwilioOperation } from './twilio-settings.js';
export { twilioError, type TwilioFailure } from './twilio-client.js';
export {
  createTwilioSignatureVerifier,
  verifyTwilioSignature,
  type TwilioCallback,
  type TwilioSignatureInput,
  type TwilioSignatureVerifierOptions,
} from './twilio-signature.js';
