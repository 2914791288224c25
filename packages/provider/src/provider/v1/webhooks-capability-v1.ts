/** An event a provider pushes to us, after its signature was verified. */
export type ProviderEventV1 = UssdVerificationEventV1;

/** The service's USSD_VERIFICATION event: the user dialled the code and entered the OTP (or failed to). */
export interface UssdVerificationEventV1 {
  /** Tells event kinds apart. */
  readonly type: 'ussd-verification';
  /** The number that dialled, in E.164: how the engine finds the flow. */
  readonly phoneNumber: string;
  /** `success` when the user entered the right OTP. */
  readonly status: 'success' | 'failed';
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
