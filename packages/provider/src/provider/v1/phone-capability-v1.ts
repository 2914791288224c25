import type { ProviderCallContextV1 } from './provider-call-context-v1.js';

/** The channels by which a phone verification code can travel. */
export type PhoneChannel = 'sms' | 'voice';

/** Send a verification code to a phone number. */
export interface PhoneSendInputV1 {
  readonly phoneNumber: string;
  readonly from?: string;
  readonly channel: PhoneChannel;
}

/** What a phone send returns. */
export interface PhoneSendResultV1 {
  /** Ties a later check to this send. */
  readonly requestId: string;
}

/** Check the code a user entered against an earlier send. */
export interface PhoneCheckInputV1 {
  readonly requestId: string;
  readonly code: string;
}

/** Whether the code matched. */
export interface PhoneCheckResultV1 {
  readonly valid: boolean;
}

/** Phone verification where the provider generates and checks the code. */
export interface PhoneCapabilityV1 {
  /** The channels this provider can send a code by. */
  readonly channels: readonly PhoneChannel[];
  send(input: PhoneSendInputV1, context: ProviderCallContextV1): Promise<PhoneSendResultV1>;
  check(input: PhoneCheckInputV1, context: ProviderCallContextV1): Promise<PhoneCheckResultV1>;
}
