import type { AnyMachineSnapshot } from 'xstate';
import type { FlowDefinition } from '../flows/flow-definition.js';

/**
 * The wake a change from `previous` to `next` must schedule before it is written, or undefined when it needs none (no
 * timer, or the same one the change before it scheduled). Scheduled before the compare-and-set, like the event
 * webhook's ids: a process that dies after the write leaves the timer to the others, and a write that loses only
 * leaves an early wake, which finds nothing due (docs/decisions/1560-durable-flow-timers.md).
 */
export function wakeToSchedule(
  definition: FlowDefinition,
  previous: AnyMachineSnapshot | undefined,
  next: AnyMachineSnapshot,
): number | undefined {
  const wake = definition.wakeAt?.(next);
  if (wake === undefined || (previous !== undefined && definition.wakeAt?.(previous) === wake)) return undefined;
  return wake;
}
