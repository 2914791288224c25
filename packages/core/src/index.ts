/**
 * verikit core: the verification flows (USSD OTP, phone, BVN/NIN) as pure XState machines, the
 * engine that persists them in Keyv and runs their provider calls, and the engine's errors. The
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
} from '@verikit/provider';
export { createVerikit, type Verikit, type VerikitOptions, type Clock, type ReceiveResult } from './engine/create-verikit.js';
export type { StartInput, UserEvent, SendSmsInput, SendWhatsAppInput } from './engine/inputs.js';
export { startInputSchema, userEventSchema, sendSmsInputSchema, sendWhatsAppInputSchema } from './engine/inputs.js';
export type { FlowView } from './engine/view.js';
export { MemoryChangeBus, type FlowChangeBus, type FlowListener } from './engine/change-bus.js';
export { defaultPolicies, type FlowPolicies } from './flows/policies.js';
export { createFlowMachines, userEventTypes, type FlowMachines, type FlowStatus } from './flows/machines.js';
export { createPureTransitions, type PureTransitions, type PureStep } from './flows/pure-transition.js';
export { createPhoneMachine, type PhoneContext, type PhoneEvent, type PhoneInput } from './flows/phone-machine.js';
export { createUssdMachine, type UssdContext, type UssdEvent, type UssdInput } from './flows/ussd-machine.js';
export { createIdentityMachine, type IdentityContext, type IdentityEvent, type IdentityInput } from './flows/identity-machine.js';
export type { FlowKind, FlowError, EffectKind, EffectRequest, PendingEffect, BaseEvent, TickEvent, EffectSucceededEvent, EffectFailedEvent, CancelEvent } from './flows/shared.js';
export { recordSchemaVersion, type FlowRecord, type FlowStore, type LimitResult } from './store/flow-store.js';
export { KeyvFlowStore, createMemoryKeyv } from './store/keyv-flow-store.js';
export { KeyLock } from './store/key-lock.js';
export { safeStoreCause } from './store/safe-store-cause.js';
