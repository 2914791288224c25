import type { InboundChannelV1 } from './inbound-capability-v1.js';

/** An event a provider pushes to us, after its signature was verified. */
export type ProviderEventV1 = UssdVerificationEventV1 | DeliveryEventV1 | DialInEventV1 | InboundMessageEventV1;

/**
 * A message a user sent to the application (an SMS to its number, a WhatsApp message to its sender), as the
 * provider's signed webhook reported it: the engine finds the flow waiting for a message by the sender's number and
 * the reference in the text (docs/flows.md, "Inbound steps"). The text is never logged or stored.
 */
export interface InboundMessageEventV1 {
  /** Tells event kinds apart. */
  readonly type: 'inbound-message';
  /** The channel the message came by. */
  readonly channel: InboundChannelV1;
  /** The number that sent it, in E.164, as the provider reported it (`whatsapp:` removed). */
  readonly from: string;
  /** The number it was sent to, in E.164 (`whatsapp:` removed): the application's. */
  readonly to: string;
  /** The message's text, at most 1,600 characters. */
  readonly text: string;
}

/**
 * A dial: the carrier reports that `phoneNumber` dialled the service code followed by `reference`. The
 * engine finds the dial-in flow by the reference (and, for a flow verifying a number, by the number too).
 */
export interface DialInEventV1 {
  /** Tells event kinds apart. */
  readonly type: 'dial-in';
  /** The number that dialled, in E.164, as the carrier reported it. */
  readonly phoneNumber: string;
  /** What the user typed after the service code: the flow's one-time reference. */
  readonly reference: string;
}

/** The service's USSD_VERIFICATION event: the user dialled the code and entered the OTP (or failed to). */
export interface UssdVerificationEventV1 {
  /** Tells event kinds apart. */
  readonly type: 'ussd-verification';
  /** The number that dialled, in E.164: how the engine finds the flow. */
  readonly phoneNumber: string;
  /** `success` when the user entered the right OTP. */
  readonly status: 'success' | 'failed';
}

/**
 * A delivery receipt: what became of a message the provider sent for a flow (the code of a phone
 * verification). The engine finds the flow by `messageId`, the `requestId` (or `messageId`) the send
 * returned. It carries no phone number and no message text.
 */
export interface DeliveryEventV1 {
  /** Tells event kinds apart. */
  readonly type: 'delivery';
  /** The provider's id of the message or request, as the send returned it. */
  readonly messageId: string;
  /** `delivered`: the handset has it. `undelivered`: the provider gave up on it (see `reason`). */
  readonly status: 'delivered' | 'undelivered';
  /**
   * The provider's reason for an undelivered message: its error code as `<provider>:<code>`
   * (`twilio:30003`, kept as it is) or a short text (1 to 200 characters; runs of 4 or more digits in it
   * are masked, since a text may quote a phone number).
   */
  readonly reason?: string;
  /** When the provider says the status changed, in ms since the epoch; absent when it does not say. */
  readonly at?: number;
}

/** A webhook as received: the raw body (exactly as sent, for signatures) and its headers. */
export interface RawWebhookV1 {
  /** The body exactly as received: a signature covers these bytes. */
  readonly body: string;
  /** The request headers by lower-case name, as Node and the Fetch API give them. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Parses a verified webhook body into an event. */
export interface WebhooksCapabilityV1 {
  /**
   * Returns the event, `null` for a well-formed event of a kind we do not handle, and throws an
   * `InvalidInputError` for a malformed body.
   */
  parse(webhook: RawWebhookV1): ProviderEventV1 | null;
}
