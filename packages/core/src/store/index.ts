/**
 * `@verikit/core/store`: what a flow store built outside core (the Redis store and change bus) needs
 * to fail the way the in-memory store does. Applications pass a store; they do not build one from this.
 *
 * @module
 */
export { safeStoreCause } from './safe-store-cause.js';
