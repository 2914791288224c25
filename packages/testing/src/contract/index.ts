/**
 * The provider contract suite: one set of vitest tests that every provider of the spec must pass, and the wire
 * contract every HTTP provider must pass on a failing network (`runWireContract`).
 * A subpath of its own (`@verikit/testing/contract`) because it imports vitest, which the rest of
 * the package (the test double, the clock, the sandbox) must not load.
 *
 * @module \@verikit/testing/contract
 */
export {
  runProviderContract,
  contractFailureBehaviours,
  failByMagicNumber,
  type ContractSubject,
  type ContractFailure,
  type ContractOperation,
  type ContractInputOverride,
} from './provider-contract.js';
export type { ContractIdentity } from './contract-identity.js';
export type { ContractDialIn } from './contract-dial-in.js';
export type { ContractTemplate, ContractWhatsAppTemplates } from './contract-templates.js';
export { runIdentityStepsContract, type IdentityStepsSubject } from './identity-steps-contract.js';
export { startWebhookInbox, type WebhookInbox } from './webhook-inbox.js';
export { runWireContract, type WireSubject } from './wire-contract.js';
