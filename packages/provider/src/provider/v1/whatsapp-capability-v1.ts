import { z } from 'zod';
import { phoneNumberSchema, whatsAppMessageSchema } from '../../schemas.js';
import type { MessageSendResultV1 } from './message-send-result-v1.js';
import type { MessagingRequirementV1 } from './messaging-requirement-v1.js';
import type { ProviderCallContextV1 } from './provider-call-context-v1.js';

/** Send one WhatsApp message. */
export interface WhatsAppSendInputV1 {
  /** The recipient, in E.164. */
  readonly phoneNumber: string;
  /** The text, as the user will read it. */
  readonly message: string;
}

/** The schema of {@link WhatsAppSendInputV1}; unknown fields ignored, as for `smsSendInputSchemaV1`. */
export const whatsAppSendInputSchemaV1 = z.object({
  /** The recipient, in E.164. */
  phoneNumber: phoneNumberSchema,
  /** The text, 1 to 4,096 characters. */
  message: whatsAppMessageSchema,
}) satisfies z.ZodType<WhatsAppSendInputV1>;

/**
 * @deprecated Renamed {@link whatsAppSendInputSchemaV1} (docs/migration.md); this name goes in the next minor release.
 * @alias
 */
export const whatsAppSendInputSchema = whatsAppSendInputSchemaV1;

/** WhatsApp sending. */
export interface WhatsAppCapabilityV1 {
  /** What every call needs. Absent: nothing (the WhatsApp sender is part of the provider's settings). */
  readonly requires?: readonly MessagingRequirementV1[];
  /** Sends the message; resolves once the provider accepted it. */
  send(input: WhatsAppSendInputV1, context: ProviderCallContextV1): Promise<MessageSendResultV1>;
}
