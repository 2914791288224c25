/**
 * A fake of Smile ID's API for tests and development: Enhanced KYC, Biometric KYC (upload and job status), signatures
 * checked and made as Smile ID does, a register of fixture people, an outage switch and a log of charged lookups.
 *
 * @module \@verikit/smile-id/fake
 */
export { startSmileIdFake, type SmileIdFake, type SmileIdFakeOptions } from './start-smile-id-fake.js';
