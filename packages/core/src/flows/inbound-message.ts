import type { InboundChannelV1 } from '@verikit/provider';

// What a phone machine needs of a plan's inbound step (decision 1695): the step kept in its context, the message event,
// and when a message verifies. How the step is made and routed is in inbound-step.ts.

/**
 * A plan's inbound step (decision 1695): the user proves the number by sending the flow's reference from it, by SMS
 * or WhatsApp, to the application's number on that channel. The reference itself is never stored: `nonce` is what the
 * engine derives it from with its secret (for the view), `referenceHash` its keyed hash with the number (the route).
 */
export interface InboundStep {
  /** The channels the user may send on, in the plan's order. */
  readonly channels: readonly InboundChannelV1[];
  /** The application's number on each channel, in E.164: where the message must arrive. */
  readonly to: Readonly<Partial<Record<InboundChannelV1, string>>>;
  /** Random: the reference is the engine's keyed hash of it and the flow id, so only the engine can show it. */
  readonly nonce: string;
  /** The keyed hash of the number verified and the reference: what a message must match. */
  readonly referenceHash: string;
  /** Until when a message verifies (the reference's life, `codeTtlMs` from the start). */
  readonly until: number;
}

/** The method of a flow an inbound message verified. */
export type InboundMethod = 'sms-inbound' | 'whatsapp-inbound';

/**
 * A message a user sent (an inbound event): who sent it, on which channel, to which number, and the keyed hashes of
 * the references its text carries (with the sender's number), of which one must be the flow's.
 */
export type InboundMessageEvent = {
  type: 'inbound-message';
  now: number;
  channel: InboundChannelV1;
  phoneNumber: string;
  to: string;
  referenceHashes: readonly string[];
};

/** The method of the inbound channel a message came by. */
export function inboundMethodOf(channel: InboundChannelV1): InboundMethod {
  return channel === 'sms' ? 'sms-inbound' : 'whatsapp-inbound';
}

/**
 * True when a user's message verifies the flow: it came from the number verified, on a channel of the plan's
 * inbound step, to the application's number on that channel, while the reference lives, carrying the reference.
 */
export function inboundMatches(
  context: { readonly phoneNumber: string; readonly inbound?: InboundStep | undefined },
  event: { readonly type: string },
): boolean {
  const step = context.inbound;
  if (event.type !== 'inbound-message' || step === undefined) return false;
  const message = event as InboundMessageEvent;
  return (
    message.now < step.until &&
    message.phoneNumber === context.phoneNumber &&
    step.channels.includes(message.channel) &&
    step.to[message.channel] === message.to &&
    message.referenceHashes.includes(step.referenceHash)
  );
}
