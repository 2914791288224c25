/**
 * A fake of Dojah's Nigeria KYC API for tests and development: Validate BVN, the BVN, NIN and vNIN lookups and the
 * selfie verifications, shaped as Dojah's documented examples, with a register of fixture people, an outage switch
 * and a log of charged lookups.
 *
 * @module \@verikit/dojah/fake
 */
export { dojahSandboxPeople, startDojahFake, type DojahFake, type DojahFakeOptions } from './start-dojah-fake.js';
