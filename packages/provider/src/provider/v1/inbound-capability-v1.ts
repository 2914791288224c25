/** A channel on which a user can send a message *to* the application: the inbound steps of a plan. */
export type InboundChannelV1 = 'sms' | 'whatsapp';

/**
 * Receiving messages: the numbers a user can text or message on WhatsApp, so that a flow can show them ("text
 * 58392174 to +1 415 523 8886", or a `wa.me` link) and verify the number that sends its reference. The messages
 * themselves arrive as {@link InboundMessageEventV1}s through the provider's signed webhook. Nothing is sent.
 */
export interface InboundCapabilityV1 {
  /** The channels on which the provider receives messages for this application. */
  readonly channels: readonly InboundChannelV1[];
  /**
   * The number, in E.164, a user sends to on `channel` (the application's SMS number, its WhatsApp sender). Read
   * when a flow starts; throws an `InvalidInputError` naming the setting when none is configured.
   */
  numberFor(channel: InboundChannelV1): string;
}
