/**
 * `@verikit/core/internal`: what verikit's own packages and tools share with core (the HTTP layer,
 * the Redis store and change bus, the bench, the flow diagrams). **Not public API**: it changes in
 * any release without notice. Applications use the main entry.
 *
 * @module
 */
export { createFlowMachines } from './flows/machines.js';
export { createIdentityMachine } from './flows/identity-machine.js';
export { createPureTransitions } from './flows/fast-transitions/pure-transition.js';
export { safeStoreCause } from './store/safe-store-cause.js';
export * from './keys/store-keys.js';
export { parseFlowId } from './inputs/inputs.js';
export { errorCode } from './logging/error-code.js';
export { systemClock } from './time/clock.js';
export { RecentlyUsed } from './engine/flow-records.js';
export { inboundLeaseMs, receiveOptionsSchema } from './inbound/receive-inbound-event.js';
export { SendGuard } from './guard/send-guard.js';
export { checkGuardOptions, resolveGuardOptions } from './guard/guard-options.js';
export { SecretBox } from './secrets/secrets.js';
