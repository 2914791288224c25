/**
 * `@verikit/core/logging`: how the engine names an error in a log line, for packages built on the
 * engine (the HTTP layer) so that every verikit log reads the same.
 *
 * @module
 */
export { errorCode } from './error-code.js';
