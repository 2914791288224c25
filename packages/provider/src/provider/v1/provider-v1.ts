import type { IdentityCapabilityV1 } from './identity-capability-v1.js';
import type { PhoneCapabilityV1 } from './phone-capability-v1.js';
import type { SmsCapabilityV1 } from './sms-capability-v1.js';
import type { UssdCapabilityV1 } from './ussd-capability-v1.js';
import type { WebhooksCapabilityV1 } from './webhooks-capability-v1.js';
import type { WhatsAppCapabilityV1 } from './whatsapp-capability-v1.js';

/**
 * The provider interface, version 1. A provider implements the capabilities it has; the engine
 * fails fast with a `CapabilityError` when a flow needs one that is missing.
 *
 * A third-party provider imports only `@verikit/provider`.
 */
export interface ProviderV1 {
  /** The spec version implemented: lets the engine refuse providers of a spec it does not know. */
  readonly specificationVersion: 'v1';
  /** A short name for logs and errors, e.g. `gateway`, `test`. */
  readonly name: string;
  /** USSD OTP verification (the result arrives as a webhook). */
  readonly ussd?: UssdCapabilityV1;
  /** Phone verification where the provider makes and checks the code. */
  readonly phone?: PhoneCapabilityV1;
  /** BVN/NIN verification: an OTP to the phone registered for the number. */
  readonly identity?: IdentityCapabilityV1;
  /** Sending SMS (`verikit.sendSms`). */
  readonly sms?: SmsCapabilityV1;
  /** Sending WhatsApp messages (`verikit.sendWhatsApp`). */
  readonly whatsapp?: WhatsAppCapabilityV1;
  /** Parsing the events the provider pushes (USSD results). */
  readonly webhooks?: WebhooksCapabilityV1;
}
