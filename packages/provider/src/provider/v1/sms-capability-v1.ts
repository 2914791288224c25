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

/** SMS sending. */
export interface SmsCapabilityV1 {
  /** What every call needs, e.g. `sender` when no default sender is configured. Absent: nothing. */
  readonly requires?: readonly MessagingRequirementV1[];
  /** Sends the message; resolves once the provider accepted it. */
  send(input: SmsSendInputV1, context: ProviderCallContextV1): Promise<MessageSendResultV1>;
}
