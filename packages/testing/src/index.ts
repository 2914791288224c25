/**
 * Test tools for verikit: a scriptable test double of provider spec v1, a manual clock, a reader
 * of server-sent events, and the helpers every package's tests share (fresh phone numbers, the typed
 * failure of a call, the secrets check, a watch on what a provider sends, logs and throws). The provider contract suite, which imports vitest, is the
 * subpath `@verikit/testing/contract`; the sandbox server is `@verikit/gateway/fake`.
 *
 * @module \@verikit/testing
 */
export * from './test-provider-v1.js';
export * from './manual-clock.js';
export * from './server-sent-event-reader.js';
export { callContext } from './call-context.js';
export { failureOf } from './failure-of.js';
export { magicNumberOf } from './magic-number-of.js';
export { leakWatch, type LeakWatch, type RecordedRequest } from './leak-watch.js';
export { freshPhoneNumber } from './fresh-phone-number.js';
/** @public Documented in the package README, for a provider's own secret-leak tests. */
export { reachableText, expectNoSecrets } from './reachable-text.js';
export * from './webhook-receiver.js';
export * from './misbehaving-server.js';
