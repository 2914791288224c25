/**
 * `@verikit/core/inputs`: the flow-id check the engine runs, for packages that take flow ids before
 * they reach the engine (the HTTP layer). Applications call the engine, which checks ids itself.
 *
 * @module
 */
export { parseFlowId } from './parse-flow-id.js';
