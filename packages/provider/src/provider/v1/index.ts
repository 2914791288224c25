export type { ProviderV1 } from './provider-v1.js';
export type { ProviderCallContextV1 } from './provider-call-context-v1.js';
export type { UssdCapabilityV1, UssdInitiateInputV1, UssdInitiateResultV1 } from './ussd-capability-v1.js';
export type {
  PhoneCapabilityV1,
  PhoneChannel,
  PhoneCheckInputV1,
  PhoneCheckReasonV1,
  PhoneCheckResultV1,
  PhoneSendInputV1,
  PhoneSendResultV1,
} from './phone-capability-v1.js';
export type { DialInAnswerV1, DialInCapabilityV1, DialInSessionV1 } from './dial-in-capability-v1.js';
export type { MessagingRequirementV1 } from './messaging-requirement-v1.js';
export type { IdentityCapabilityV1, IdentitySendOtpInputV1, IdentityType } from './identity-capability-v1.js';
export type { MessageSendResultV1 } from './message-send-result-v1.js';
export type { SmsCapabilityV1, SmsSendInputV1 } from './sms-capability-v1.js';
export type { WhatsAppCapabilityV1, WhatsAppSendInputV1 } from './whatsapp-capability-v1.js';
export type {
  DeliveryEventV1,
  DialInEventV1,
  ProviderEventV1,
  RawWebhookV1,
  UssdVerificationEventV1,
  WebhooksCapabilityV1,
} from './webhooks-capability-v1.js';
export { requireCapabilityV1, type CapabilityNeedV1 } from './require-capability-v1.js';
export type { CircuitChangeV1, CircuitsV1 } from './circuits-v1.js';
export type {
  CircuitClosedV1,
  CircuitOpenedV1,
  ClosedCircuitV1,
  HeldCircuitV1,
  ProbeClaimV1,
  SharedCircuitStateV1,
  SharedCircuitsV1,
} from './shared-circuits-v1.js';
