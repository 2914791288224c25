/**
 * Test tools for verikit: a scriptable test double of the provider spec, a manual clock, the sandbox
 * server that emulates the service, and the provider contract suite (imports vitest).
 *
 * @module
 */
export * from './test-provider.js';
export * from './manual-clock.js';
export * from './sandbox/index.js';
export * from './contract/index.js';
