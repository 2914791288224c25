/**
 * `@verikit/core/flows`: the flow machines and the pure transition function the engine drives them
 * with, for the tools that measure or draw them (the engine bench, the diagrams in docs/flows.md).
 * Applications use the engine instead.
 *
 * @module
 */
export { createFlowMachines } from './machines.js';
export { createIdentityMachine } from './identity-machine.js';
export { createPureTransitions } from './pure-transition.js';
