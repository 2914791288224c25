/**
 * A fake of Twilio's Verify v2 and Programmable Messaging APIs for tests and development:
 * `startTwilioFake()`, its magic numbers and what they do. Loads hono; the provider itself does not.
 *
 * @module \@verikit/twilio/fake
 */
export {
  startTwilioFake,
  type TwilioFake,
  type TwilioFakeContentTemplate,
  type TwilioFakeOptions,
  type TwilioFakeRequest,
  type TwilioFakeSettings,
} from './start-twilio-fake.js';
export type { TwilioFakeStatusCallback, TwilioFakeWebhookSharedKey } from './twilio-fake-messages.js';
export type { TwilioFakeMessage } from './twilio-fake-routes.js';
export { twilioMagicNumbers, twilioMagicDescriptions, type TwilioMagicBehaviour } from './twilio-magic-numbers.js';
