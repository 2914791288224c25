/**
 * React bindings for verikit flows: `useFlow` (the client's observer on `useSyncExternalStore`),
 * `useStartFlow`, `useCountdown`, and headless, accessible parts a product styles itself: an OTP
 * input, a resend button with its countdown, and USSD instructions with a `tel:` link. SSR-safe:
 * nothing connects or reads a clock on the server. Guide: docs/ui.md.
 *
 * @module
 */
/** @public `useFlowClient` is documented in docs/ui.md for a product's own components. */
export {
  FlowClientProvider,
  useFlowClient,
  useMessage,
  type FlowClientProviderProps,
} from './flow-client-context.js';
export { useFlow, type UseFlowResult } from './use-flow.js';
export { useStartFlow, type UseStartFlowResult } from './use-start-flow.js';
export { useCountdown, type UseCountdownOptions } from './use-countdown.js';
export { OtpInput, type OtpInputProps } from './otp-input.js';
export {
  ResendButton,
  type ResendButtonFlow,
  type ResendButtonProps,
  type ResendButtonState,
} from './resend-button.js';
export { UssdInstructions, type UssdInstructionsProps, type UssdInstructionsState } from './ussd-instructions.js';
/** @public Documented in docs/ui.md, for a product that draws its own USSD instructions. */
export { ussdTelHref } from './tel-href.js';
export type { RequestState } from './use-request-state.js';
