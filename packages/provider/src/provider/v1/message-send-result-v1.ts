/** What a message send returns: the provider's message id, where it gives one. */
export interface MessageSendResultV1 {
  readonly messageId?: string;
}
