export type { ProviderV1 } from './provider-v1.js';
export type { ProviderCallContextV1 } from './provider-call-context-v1.js';
export {
  ussdInitiateInputSchemaV1,
  type UssdCapabilityV1,
  type UssdInitiateInputV1,
  type UssdInitiateResultV1,
} from './ussd-capability-v1.js';
export {
  phoneCheckInputSchemaV1,
  phoneReachInputSchemaV1,
  phoneSendInputSchemaV1,
  type PhoneCapabilityV1,
  type PhoneChannel,
  type PhoneCheckInputV1,
  type PhoneCheckReasonV1,
  type PhoneCheckResultV1,
  type PhoneReachInputV1,
  type PhoneDeliveredInputV1,
  type PhoneReachResultV1,
  type PhoneSendInputV1,
  type PhoneSendResultV1,
} from './phone-capability-v1.js';
export type { InboundCapabilityV1, InboundChannelV1 } from './inbound-capability-v1.js';
export type { DialInAnswerV1, DialInCapabilityV1, DialInSessionV1 } from './dial-in-capability-v1.js';
export type { MessagingRequirementV1 } from './messaging-requirement-v1.js';
export {
  identitySendOtpInputSchemaV1,
  type IdentityCapabilityV1,
  type IdentitySendOtpInputV1,
  type IdentityType,
} from './identity-capability-v1.js';
export {
  maxSelfieBytes,
  type IdentityClaimField,
  type IdentityClaimsV1,
  type IdentityConsentInputV1,
  type IdentityConsentRequestV1,
  type IdentityConsentStatusV1,
  type IdentityFaceInputV1,
  type IdentityFaceResultV1,
  type IdentityMatchInputV1,
  type IdentityMatchResultV1,
  type IdentityStep,
  type IdentityStepsCapabilityV1,
} from './identity-steps-v1.js';
export type { MessageSendResultV1 } from './message-send-result-v1.js';
export {
  smsSendInputSchema,
  smsSendInputSchemaV1,
  type SmsCapabilityV1,
  type SmsSendInputV1,
} from './sms-capability-v1.js';
export {
  whatsAppSendInputSchema,
  whatsAppSendInputSchemaV1,
  type WhatsAppCapabilityV1,
  type WhatsAppSendInputV1,
} from './whatsapp-capability-v1.js';
export type {
  DeliveryEventV1,
  DialInEventV1,
  InboundMessageEventV1,
  ProviderEventV1,
  RawWebhookV1,
  UssdVerificationEventV1,
  WebhooksCapabilityV1,
} from './webhooks-capability-v1.js';
export { readPhoneSendInputV1, requireCapabilityV1, type CapabilityNeedV1 } from './require-capability-v1.js';
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
export type { RouteCountsV1, RouteOutcomeV1, RouteTallyV1 } from './route-counts-v1.js';
