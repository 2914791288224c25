/**
 * The rule `withFailover` applies, defined in `@verikit/provider` beside the errors it reads, so the engine
 * (which does not depend on this package) applies the same rule to a failed send's cooldown.
 */
export { isProvablyUnsent } from '@verikit/provider';
