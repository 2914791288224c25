/**
 * Test tools for verikit: a scriptable test double of the provider spec, a manual clock, and the sandbox
 * server that emulates the service. The provider contract suite, which imports vitest, is the
 * subpath `@verikit/testing/contract`.
 *
 * @module
 */
export * from './test-provider.js';
export * from './manual-clock.js';
export * from './sandbox/index.js';
