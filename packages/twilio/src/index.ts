/**
 * The verikit provider for Twilio: phone verification on Twilio Verify v2 (sms, call, whatsapp), SMS and
 * WhatsApp on Programmable Messaging (WhatsApp by an approved template), status callbacks as delivery receipts,
 * and a verifier of `X-Twilio-Signature` for callbacks. No USSD and no
 * BVN/NIN. A fake of Twilio's API is on the `@verikit/twilio/fake` subpath.
 *
 * @module \@verikit/twilio
 */
export { createTwilioProvider } from './create-twilio-provider.js';
export type { TwilioProviderSettings, TwilioOperation } from './twilio-settings.js';
/** @public Documented in docs/providers/twilio.md: verifying Twilio's callbacks on a route of one's own. */
export {
  createTwilioSignatureVerifier,
  verifyTwilioSignature,
  verifyTwilioWebhook,
  type TwilioCallback,
  type TwilioSignatureInput,
  type TwilioSignatureVerifierOptions,
  type TwilioWebhookInput,
} from './twilio-signature.js';
/** @public Documented in docs/providers/twilio.md: status callbacks as delivery receipts. */
export {
  createTwilioStatusCallbackVerifier,
  type TwilioStatusCallbackVerifier,
  type TwilioStatusCallbackVerifierOptions,
  type TwilioVerifiedCallback,
} from './twilio-status-callback.js';
/** @public Documented in docs/providers/twilio.md: messages users send, for a plan's inbound steps. */
export {
  createTwilioInboundMessageVerifier,
  parseTwilioInboundMessage,
  type TwilioInboundMessageVerifier,
  type TwilioInboundMessageVerifierOptions,
  type TwilioVerifiedMessage,
} from './twilio-inbound-message.js';
