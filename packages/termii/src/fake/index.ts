/**
 * A fake of Termii's public API for tests and development: `startTermiiFake()`, its magic numbers and
 * what they do. Loads hono; the provider itself does not.
 *
 * @module \@verikit/termii/fake
 */
export {
  startTermiiFake,
  type TermiiFake,
  type TermiiFakeOptions,
  type TermiiFakeRequest,
} from './start-termii-fake.js';
export type { TermiiFakeDeliveryReports } from './termii-fake-reports.js';
export { termiiMagicNumbers, termiiMagicDescriptions, type TermiiMagicBehaviour } from './termii-magic-numbers.js';
