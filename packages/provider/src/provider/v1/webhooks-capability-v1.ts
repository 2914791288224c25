/** An event a provider pushes to us, after its signature was verified. */
export type ProviderEventV1 = UssdVerificationEventV1;

/** The service's USSD_VERIFICATION event: the user dialled the code and entered the OTP (or failed to). */
export interface UssdVerificationEventV1 {
  readonly type: 'ussd-verification';
  readonly phoneNumber: string;
  readonly status: 'success' | 'failed';
}

/** A webhook as received: the raw body (exactly as sent, for signatures) and its headers. */
export interface RawWebhookV1 {
  readonly body: string;
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
