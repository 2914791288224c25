import type { Logger } from './logger.js';

/** The channels by which a phone verification code can travel. */
export type PhoneChannel = 'sms' | 'voice';

/** The identity numbers verikit can verify. */
export type IdentityType = 'bvn' | 'nin';

/** What every provider call receives besides its input. */
export interface ProviderCallContext {
  /** Aborted when the engine's deadline for the call passes. */
  readonly signal: AbortSignal;
  /** A deterministic id for this effect (`flowId:effect:n`); providers with idempotency support pass it on. */
  readonly idempotencyKey: string;
  /** Where the provider may log. Never log secrets or personal data through it. */
  readonly logger: Logger;
}

/** Initiate a USSD OTP verification. */
export interface UssdInitiateInput {
  /** E.164, e.g. `+2348012345678`. */
  readonly phoneNumber: string;
}

/** What the service returns for a USSD initiation: both are shown to the user. */
export interface UssdInitiateResult {
  readonly otp: string;
  readonly ussdCode: string;
  readonly reference?: string;
}

/** USSD OTP verification: the result comes later, as a webhook. */
export interface UssdCapabilityV1 {
  initiate(input: UssdInitiateInput, context: ProviderCallContext): Promise<UssdInitiateResult>;
}

export interface PhoneSendInput {
  readonly phoneNumber: string;
  readonly from?: string;
  readonly channel: PhoneChannel;
}

export interface PhoneSendResult {
  /** Ties a later check to this send. */
  readonly requestId: string;
}

export interface PhoneCheckInput {
  readonly requestId: string;
  readonly code: string;
}

export interface PhoneCheckResult {
  readonly valid: boolean;
}

/** Phone verification where the provider generates and checks the code. */
export interface PhoneCapabilityV1 {
  /** The channels this provider can send a code by. */
  readonly channels: readonly PhoneChannel[];
  send(input: PhoneSendInput, context: ProviderCallContext): Promise<PhoneSendResult>;
  check(input: PhoneCheckInput, context: ProviderCallContext): Promise<PhoneCheckResult>;
}

export interface IdentitySendOtpInput {
  readonly idType: IdentityType;
  /** The full BVN/NIN: 11 digits. Held in memory only for the call. */
  readonly number: string;
  /** The OTP the engine generated: a string of digits. */
  readonly otp: string;
}

/** BVN/NIN: the provider delivers our OTP to the phone registered for the number. */
export interface IdentityCapabilityV1 {
  readonly types: readonly IdentityType[];
  sendOtp(input: IdentitySendOtpInput, context: ProviderCallContext): Promise<void>;
}

export interface SmsSendInput {
  /**
   * The sender. Absent: the provider's own default sender; a provider that has none throws an
   * `InvalidInputError` naming `from` (DESIGN §6: `from` is required unless a default exists).
   */
  readonly from?: string;
  readonly to: string;
  readonly message: string;
}

export interface MessageSendResult {
  readonly messageId?: string;
}

export interface SmsCapabilityV1 {
  send(input: SmsSendInput, context: ProviderCallContext): Promise<MessageSendResult>;
}

export interface WhatsAppSendInput {
  readonly phoneNumber: string;
  readonly message: string;
}

export interface WhatsAppCapabilityV1 {
  send(input: WhatsAppSendInput, context: ProviderCallContext): Promise<MessageSendResult>;
}

/** An event a provider pushes to us, after its signature was verified. */
export type ProviderEvent = UssdVerificationEvent;

/** The service's USSD_VERIFICATION event: the user dialled the code and entered the OTP (or failed to). */
export interface UssdVerificationEvent {
  readonly type: 'ussd-verification';
  readonly phoneNumber: string;
  readonly status: 'success' | 'failed';
}

/** A webhook as received: the raw body (exactly as sent, for signatures) and its headers. */
export interface RawWebhook {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Parses a verified webhook body into an event. */
export interface WebhooksCapabilityV1 {
  /**
   * Returns the event, `null` for a well-formed event of a kind we do not handle, and throws an
   * `InvalidInputError` for a malformed body.
   */
  parse(webhook: RawWebhook): ProviderEvent | null;
}

/**
 * The provider interface, version 1. A provider implements the capabilities it has; the engine
 * fails fast with a `CapabilityError` when a flow needs one that is missing.
 *
 * A third-party provider imports only `@verikit/core/spec`.
 */
export interface ProviderV1 {
  readonly specificationVersion: 'v1';
  /** A short name for logs and errors, e.g. `gateway`, `test`. */
  readonly name: string;
  readonly ussd?: UssdCapabilityV1;
  readonly phone?: PhoneCapabilityV1;
  readonly identity?: IdentityCapabilityV1;
  readonly sms?: SmsCapabilityV1;
  readonly whatsapp?: WhatsAppCapabilityV1;
  readonly webhooks?: WebhooksCapabilityV1;
}
