/**
 * Test tools for verikit: a scriptable test double of provider spec v1 and a manual clock. The
 * provider contract suite, which imports vitest, is the subpath `@verikit/testing/contract`; the
 * sandbox server is `@verikit/sandbox`.
 *
 * @module \@verikit/testing
 */
export * from './test-provider-v1.js';
export * from './manual-clock.js';
export * from './server-sent-event-reader.js';
