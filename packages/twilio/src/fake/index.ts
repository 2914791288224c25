/**
 * A fake of Twilio's Verify v2 and Programmable Messaging APIs for tests and development:
 * `startTwilioFake()`, its magic numbers and what they do. Loads hono; the provider itself does not.
 *
 * @module \@verikit/twilio/fake
 */
export {
  startTwilioFake,
  defaultTwilioFakeSettings,
  type TwilioFake,
  type TwilioFakeOptions,
  type TwilioFakeRequest,
  type TwilioFakeSettings,
} from './start-twilio-fake.js';
export { twilioMagicNumbers, twilioMagicDescriptions, type TwilioMagicBehaviour } from './twilio-magic-numbers.js';
