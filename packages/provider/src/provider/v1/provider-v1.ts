import type { CircuitsV1 } from './circuits-v1.js';
import type { DialInCapabilityV1 } from './dial-in-capability-v1.js';
import type { InboundCapabilityV1 } from './inbound-capability-v1.js';
import type { IdentityCapabilityV1 } from './identity-capability-v1.js';
import type { IdentityStepsCapabilityV1 } from './identity-steps-v1.js';
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
  /** Dial-in verification: the user dials a USSD code and the carrier reports the number (docs/flows.md). */
  readonly dialIn?: DialInCapabilityV1;
  /** Receiving messages from users (SMS, WhatsApp): the inbound steps of a phone flow's plan (docs/flows.md). */
  readonly inbound?: InboundCapabilityV1;
  /** Phone verification where the provider makes and checks the code. */
  readonly phone?: PhoneCapabilityV1;
  /** BVN/NIN verification: an OTP to the phone registered for the number. */
  readonly identity?: IdentityCapabilityV1;
  /** The identity steps besides the OTP: match, consent, face (an identity flow's ladder, docs/flows.md). */
  readonly identitySteps?: IdentityStepsCapabilityV1;
  /** Sending SMS (`verikit.sendSms`). */
  readonly sms?: SmsCapabilityV1;
  /** Sending WhatsApp messages (`verikit.sendWhatsApp`). */
  readonly whatsapp?: WhatsAppCapabilityV1;
  /** Parsing the events the provider pushes (USSD results). */
  readonly webhooks?: WebhooksCapabilityV1;
  /**
   * The circuit breakers of its members, for a provider that has them (`withFailover`): the engine subscribes and
   * logs and tells every change (`verikit.on('circuit-open', …)`). Makes no call.
   */
  readonly circuits?: CircuitsV1;
}
