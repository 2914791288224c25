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
