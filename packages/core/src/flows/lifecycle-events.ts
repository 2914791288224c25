import type { AnyMachineSnapshot } from 'xstate';
import type { DeliveryStatus, FlowContextBase, FlowKind } from './flow-context.js';
import type { FlowStatus } from './machines.js';

/** The lifecycle events of a flow, for `verikit.on` (docs/flows.md, "Lifecycle events"). */
export type FlowEventType =
  | 'started'
  | 'sent'
  | 'delivered'
  | 'undelivered'
  | 'verified'
  | 'failed'
  | 'locked'
  | 'expired';

/**
 * One lifecycle event: what happened to which flow, never a secret, a code or a number. Fired once, by the
 * instance whose commit caused it, after that commit.
 */
export interface FlowEvent {
  /** Unique per event and the same wherever it is computed: `<flowId>:<version>:<type>`. */
  readonly id: string;
  /** What happened. */
  readonly type: FlowEventType;
  /** The flow it happened to. */
  readonly flowId: string;
  /** Which flow this is. */
  readonly kind: FlowKind;
  /** The flow's status after the change. */
  readonly status: FlowStatus;
  /** The flow's version after the change. */
  readonly version: number;
  /** When the change was committed (engine clock, ms since the epoch). */
  readonly at: number;
  /** `failed`: the error's code (`send_failed`, `dial_failed`, `provider_unavailable`, …). */
  readonly errorCode?: string;
  /** `delivered` and `undelivered`: the receipt, as the view shows it. */
  readonly delivery?: DeliveryStatus;
}

/** A listener of lifecycle events. A throw or a rejection is logged, never the committing caller's error. */
export type FlowEventListener = (event: FlowEvent) => void | Promise<void>;

/** Every lifecycle event type, in the order a flow may tell them. */
export const flowEventTypes = [
  'started',
  'sent',
  'delivered',
  'undelivered',
  'verified',
  'failed',
  'locked',
  'expired',
] as const satisfies readonly FlowEventType[];

/** The statuses that announce a sent message, when entered from a status that does not wait for a code. */
const waitingStatuses = new Set<string>(['awaiting-code', 'awaiting-dial']);
/** A status with its own event when a flow enters it. */
const statusEvents: Partial<Record<string, FlowEventType>> = {
  verified: 'verified',
  failed: 'failed',
  'send-failed': 'failed',
  locked: 'locked',
  expired: 'expired',
};

/** The lifecycle events one committed change causes, in the order they happened. */
export function lifecycleEventsOf(
  previous: AnyMachineSnapshot | undefined,
  next: AnyMachineSnapshot,
  meta: { id: string; kind: FlowKind; version: number; updatedAt: number },
): FlowEvent[] {
  const before = previous?.value as string | undefined;
  const after = next.value as string;
  const context = next.context as FlowContextBase;
  const event = (type: FlowEventType, extra: Partial<FlowEvent> = {}): FlowEvent => ({
    id: `${meta.id}:${meta.version}:${type}`,
    type,
    flowId: meta.id,
    kind: meta.kind,
    status: after as FlowStatus,
    version: meta.version,
    at: meta.updatedAt,
    ...extra,
  });
  const events: FlowEvent[] = [];
  if (previous === undefined) events.push(event('started'));
  // A send went out: the flow now waits for the user, coming from a send (not from a wrong code's check).
  if (waitingStatuses.has(after) && (before === undefined || (!waitingStatuses.has(before) && before !== 'checking')))
    events.push(event('sent'));
  const receipt = context.delivery;
  if (receipt !== undefined && receipt !== (previous?.context as FlowContextBase | undefined)?.delivery)
    events.push(event(receipt.status, { delivery: receipt }));
  const entered = before === after ? undefined : statusEvents[after];
  if (entered !== undefined)
    events.push(event(entered, entered === 'failed' && context.error ? { errorCode: context.error.code } : {}));
  return events;
}
