/**
 * A fake of Africa's Talking for tests and development: `startAfricasTalkingFake()` (its messaging API,
 * delivery reports, and a handset that dials the application's USSD callback), its magic numbers and what
 * they do. Loads hono; the provider itself does not. What it was checked against: SOURCES.md beside it.
 *
 * @module \@verikit/africastalking/fake
 */
export {
  startAfricasTalkingFake,
  defaultAfricasTalkingFakeSettings,
  type AfricasTalkingFake,
  type AfricasTalkingFakeOptions,
  type AfricasTalkingFakeRequest,
  type AfricasTalkingFakeSettings,
} from './start-africastalking-fake.js';
export type { FakeDial, FakeUssdScreen } from './africastalking-fake-dialler.js';
export {
  africasTalkingMagicNumbers,
  africasTalkingMagicDescriptions,
  type AfricasTalkingMagicBehaviour,
} from './africastalking-magic-numbers.js';
