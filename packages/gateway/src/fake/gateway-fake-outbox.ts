import type { FakeMessage } from '@verikit/provider-utils/fake';

/** What a message in the gateway fake's outbox is: which call sent it. */
export type GatewayFakeMessageKind = 'sms' | 'whatsapp' | 'phone-code' | 'identity-otp' | 'ussd';

/** A message the gateway fake "delivered": what the user's phone would have received. */
export interface GatewayFakeMessage extends FakeMessage {
  /** Unique within the fake: for the outbox page and logs. */
  readonly id: string;
  /** Which call sent it: a plain message, a phone code, an identity OTP, a USSD session. */
  readonly kind: GatewayFakeMessageKind;
  /** For identity OTPs: which identity number type it was sent for. */
  readonly idType?: 'bvn' | 'nin';
}
