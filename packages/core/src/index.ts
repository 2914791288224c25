/**
 * verikit core: the engine that runs the verification flows (USSD OTP, phone, BVN/NIN), persists
 * them in Keyv and makes their provider calls, with its inputs, views, stores and errors. The
 * provider spec is `@verikit/provider`; the HTTP layer is `@verikit/http`.
 *
 * @module
 */
export * from './errors/index.js';
// The errors and spec types users meet through the engine, so an application imports them from one place.
export {
  VerikitError,
  InvalidInputError,
  CapabilityError,
  RateLimitedError,
  ProviderRejectedError,
  ProviderUnavailableError,
  ProviderAuthenticationError,
  ProviderProtocolError,
  type ProviderV1,
  type Logger,
  defaultLogger,
  silentLogger,
} from '@verikit/provider';
export {
  createVerikit,
  type Verikit,
  type VerikitOptions,
  type Clock,
  type ReceiveResult,
  type InboundEvent,
  type ProviderDelivery,
  type ReceiveOptions,
  type CallOptions,
  type FlowEvent,
  type FlowEventListener,
  type FlowEventType,
  type CircuitEvent,
  type CircuitEventListener,
  type CircuitEventType,
  type EventWebhookFailure,
  type EventWebhookGiveUpReason,
  type EventWebhookOptions,
  type TimerOptions,
} from './engine/create-verikit.js';
/** @public Implemented by a flow store that shares the event webhook's work between instances (Redis). */
export type { EventOutbox, TakenEvent } from './store/event-outbox.js';
/** @public Implemented by a flow store that shares the flows' timers between instances (Redis). */
export type { FlowTimers, TakenTimer } from './store/flow-timers.js';
export type { ReviewNumber } from './flows/review-numbers.js';
/** @public Tuning the send guard: the limits an application starts from. */
export {
  defaultGuardLimits,
  type GuardLimit,
  type MoneyBudget,
  type PrefixLimit,
  type SendBudget,
  type SendGuardOptions,
} from './guard/guard-options.js';
/** @public The conversion tripwire's options, defaults and trips (`guard.tripwire`). */
export { defaultTripwire, type TripwireOptions, type TripwireTrip } from './guard/tripwire-options.js';
/** @public What sends cost (`guard.prices`) and what they cost so far (`verikit.costs()`). */
export type { PricedChannel, RateCard, SendPrice } from './guard/rate-card.js';
export type { CostLine, CostReport } from './guard/cost-ledger.js';
/** @public Given to `createVerikit({ guard: { store } })` to share counts between engines of one process. */
export {
  memorySendGuardStore,
  type SendGuardStore,
  type GuardCount,
  type GuardLimiterSpec,
  type GuardLimitName,
  type GuardRefusal,
  type GuardRateLimiter,
  type RecipientCount,
} from './store/send-guard-store.js';
export type { Verification, VerificationMethod } from './proof/verification.js';
export type { PassedStep } from './flows/identity-ladder.js';
/** @public Every method `redeemProof` accepts when the app names none: all but `dial-in-identify`. */
export { defaultProofMethods } from './proof/verification.js';
export type { IssuedProof } from './proof/proofs.js';
export type { IssueProofOptions, ProofClaim, RedeemProofOptions } from './proof/proof-inputs.js';
export type { StartInput, UserEvent, SendSmsInput, SendWhatsAppInput, WhatsAppSend } from './inputs/inputs.js';
/** @public The engine's input rules, for an application that takes these inputs on a route of its own. */
export { startInputSchema, userEventSchema, sendSmsInputSchema, sendWhatsAppInputSchema } from './inputs/inputs.js';
export type { FlowView, FlowViewError } from './flows/view.js';
export type { InboundView } from './flows/inbound-step.js';
export type { MessageOptions } from './engine/message-options.js';
/** @public True for an answer the engine replayed for a repeated idempotency key (`Idempotent-Replayed` over HTTP). */
export { isReplayed } from './engine/idempotent-call.js';
export { receiveDefaults } from './inbound/receive-inbound-event.js';
export { errorMessageIds, messageIdOf, unknownErrorMessageId } from './flows/message-ids.js';
export {
  MemoryChangeBus,
  type FlowChangeBus,
  type FlowListener,
  type PublishingWrite,
} from './engine/change-bus.js';
export { defaultPolicies, type FlowPolicies } from './flows/policies.js';
export type { FlowStatus } from './flows/machines.js';
export type { FlowKind, FlowError, DeliveryStatus } from './flows/flow-context.js';
export {
  recordSchemaVersion,
  type FlowRecord,
  type FlowStore,
  type LimitResult,
  type StoreCall,
} from './store/flow-store.js';
export { KeyvFlowStore, createMemoryKeyv } from './store/keyv-flow-store.js';
export type { Telemetry, TelemetryAttributes, TelemetryCounter, TelemetryHistogram } from './telemetry/telemetry.js';
