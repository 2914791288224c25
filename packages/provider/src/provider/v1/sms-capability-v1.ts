import { z } from 'zod';
import { phoneNumberSchema, senderSchema, smsMessageSchema } from '../../schemas.js';
import type { MessageSendResultV1 } from './message-send-result-v1.js';
import type { MessagingRequirementV1 } from './messaging-requirement-v1.js';
import type { ProviderCallContextV1 } from './provider-call-context-v1.js';

/** Send one SMS. */
export interface SmsSendInputV1 {
  /**
   * The sender. Absent: the provider's own default sender; a provider that has none throws an
   * `InvalidInputError` naming `from` (`from` is required unless a default exists: see docs/service.md).
   */
  readonly from?: string;
  /** The recipient, in E.164. */
  readonly to: string;
  /** The text, as the user will read it. */
  readonly message: string;
}

/**
 * The schema of {@link SmsSendInputV1}, as every provider checks it when called directly
 * (`parseProviderInputV1`). Unknown fields are ignored, so a provider keeps working when a newer caller sends a
 * field it does not know; an entry point that takes user input is strict on top
 * (`z.strictObject(smsSendInputSchemaV1.shape)`). `from` may be absent: the provider's default sender applies, or an
 * `InvalidInputError` names `from`.
 */
export const smsSendInputSchemaV1 = z.object({
  /** The sender ID or number; absent: the provider's default sender. */
  from: senderSchema.optional(),
  /** The recipient, in E.164. */
  to: phoneNumberSchema,
  /** The text, 1 to 1,600 characters. */
  message: smsMessageSchema,
}) satisfies z.ZodType<SmsSendInputV1>;

/**
 * @deprecated Renamed {@link smsSendInputSchemaV1} (docs/migration.md); this name goes in the next minor release.
 * @alias
 */
export const smsSendInputSchema = smsSendInputSchemaV1;

/** SMS sending. */
export interface SmsCapabilityV1 {
  /** What every call needs, e.g. `sender` when no default sender is configured. Absent: nothing. */
  readonly requires?: readonly MessagingRequirementV1[];
  /** Sends the message; resolves once the provider accepted it. */
  send(input: SmsSendInputV1, context: ProviderCallContextV1): Promise<MessageSendResultV1>;
}
