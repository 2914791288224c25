import type { AnyMachineSnapshot } from 'xstate';
import { maskDigits, type DeliveryEventV1 } from '@verikit/provider';
import type { DeliveryStatus } from '../flows/flow-context.js';
import type { SecretBox } from '../secrets/secrets.js';
import { deliveryRouteKey } from '../keys/store-keys.js';

// Delivery receipts are handled here once for every kind of flow, outside the machines: a receipt
// changes no state, it only records what became of the flow's last message (docs/flows.md, "Delivery").

/** The machine-free event the engine applies for a receipt. */
export interface DeliveryInternalEvent {
  readonly type: 'delivery';
  readonly now: number;
  readonly delivery: DeliveryStatus;
  /** The id the receipt names: the send's requestId or messageId. */
  readonly messageId: string;
}

/** The route key of a provider's message or request id: a keyed hash, so no provider id shows in key names. */
export function deliveryRoute(secrets: SecretBox, messageId: string): string {
  return deliveryRouteKey(secrets.hash('delivery:message', messageId));
}

/** The route keys a successful send writes: one per id the provider gave for it. */
export function deliveryRoutesOf(secrets: SecretBox, result: Readonly<Record<string, unknown>>): string[] {
  const ids = [result.requestId, result.messageId].filter((id): id is string => typeof id === 'string' && id !== '');
  return [...new Set(ids)].map((id) => deliveryRoute(secrets, id));
}

/** How a receipt becomes the engine's event, with the time it happened. */
export function deliveryEventOf(event: DeliveryEventV1, now: number): DeliveryInternalEvent {
  return {
    type: 'delivery',
    now,
    messageId: event.messageId,
    delivery: {
      status: event.status,
      ...(event.reason === undefined ? {} : { reason: safeReason(event.reason) }),
      at: event.at ?? now,
    },
  };
}

/** A provider's error code as `<provider>:<digits>` (`twilio:30003`): kept as it is. */
const errorCodeReason = /^[a-z][a-z0-9-]{0,31}:\d{1,6}$/;

/** A provider's reason may quote the number it failed to reach: digit runs are masked, unless it is a bare error code. */
function safeReason(reason: string): string {
  return errorCodeReason.test(reason) ? reason : maskDigits(reason);
}

/** True for the engine's receipt event. */
export function isDeliveryEvent(event: unknown): event is DeliveryInternalEvent {
  return (event as { type?: unknown } | undefined)?.type === 'delivery';
}

/**
 * The snapshot with the receipt recorded in its context, in the same state: unchanged when the
 * flow already holds a newer receipt (receipts of one message may arrive out of order). A `delivered` receipt naming
 * the newest send also sets `deliveredAt`, which stops a plan's escalation by time (decision 1602).
 */
export function withDelivery(
  machine: { resolveState(config: { value: unknown; context: Record<string, unknown> }): AnyMachineSnapshot },
  snapshot: AnyMachineSnapshot,
  event: DeliveryInternalEvent,
): AnyMachineSnapshot {
  const held = (snapshot.context as { delivery?: DeliveryStatus }).delivery;
  if (
    held !== undefined &&
    (held.at > event.delivery.at || (held.at === event.delivery.at && held.status === 'delivered'))
  )
    return snapshot;
  const context = snapshot.context as { requestId?: unknown; messageId?: unknown; deliveredAt?: number };
  const ofNewestSend = event.messageId === context.requestId || event.messageId === context.messageId;
  const deliveredAt = ofNewestSend && event.delivery.status === 'delivered' ? event.delivery.at : context.deliveredAt;
  return machine.resolveState({
    value: snapshot.value,
    context: { ...snapshot.context, delivery: event.delivery, ...(deliveredAt === undefined ? {} : { deliveredAt }) },
  });
}

/**
 * The machine event an `undelivered` receipt raises once it is recorded (a commit of its own, so the receipt is
 * seen and told before anything else happens): `delivery-failed`, naming the id the receipt names. A machine that
 * knows it decides (the phone machine falls back to its next channel when the id is its newest send's); the others
 * ignore it.
 */
export function deliveryFailedOf(
  event: DeliveryEventV1,
): { readonly type: 'delivery-failed'; readonly requestId: string } | undefined {
  return event.status === 'undelivered' ? { type: 'delivery-failed', requestId: event.messageId } : undefined;
}
