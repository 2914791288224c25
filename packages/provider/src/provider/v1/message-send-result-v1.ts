/** What a message send returns: the provider's message id, where it gives one. */
export interface MessageSendResultV1 {
  /** The provider's id for the message, to match delivery reports or support tickets. */
  readonly messageId?: string;
}
