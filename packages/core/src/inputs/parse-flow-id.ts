import { flowIdSchema, parseInput } from '@verikit/provider';

/**
 * Checks a flow id before anything touches the store: a malformed id is an `InvalidInputError` on
 * `flowId`, never a "flow not found" (docs/decisions/0400-malformed-flow-id-is-400.md). The engine and
 * the HTTP layer check ids with this one function, so both answer alike.
 */
export function parseFlowId(flowId: unknown): string {
  return parseInput(flowIdSchema, flowId, 'flowId');
}
