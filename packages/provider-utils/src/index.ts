/**
 * What every verikit HTTP provider shares (the lean ky client, timeouts, no retry once a request may
 * have left, credentials added on a copy of the headers, redaction, typed network and status errors,
 * settings read from the environment at call time), and what acts on whole providers: composition per
 * capability and failover that never risks a second send.
 *
 * @module \@verikit/provider-utils
 */
export {
  createHttpClient,
  type HttpAfterResponseHook,
  type HttpAnswer,
  type HttpBeforeRequestHook,
  type HttpClient,
  type HttpClientSettings,
  type HttpHooks,
  type HttpRequest,
  type HttpRequestInfo,
} from './http-client.js';
/** @public For a provider package outside this repository, which builds on the same parts (docs/providers/README.md). */
export { networkError, networkCodeOf, isConnectionRefused, safeCause, type NetworkFailure } from './network-error.js';
/** @public `parseJsonBody` for a provider outside this repository that reads a body other than as one JSON object. */
export { statusError, parseJsonBody } from './status-error.js';
export { redactMessage } from './redact.js';
/** @public Every provider's settings: its environment fallbacks, its own options and the transport (docs/providers/README.md). */
export {
  settingReader,
  checkSettings,
  type SettingReader,
  type SettingSource,
  resolveProviderSettings,
  type EnvironmentReaders,
  type EnvironmentSetting,
  type HttpProviderSettings,
  type ProviderSettingsDefinition,
  type ProviderSettingsOf,
  type ResolvedProviderSettings,
} from './provider-settings.js';
/** @public For a provider package outside this repository, which builds on the same parts (docs/providers/README.md). */
export {
  baseUrlSchema,
  secretSchema,
  timeoutSchema,
  providerNameSchema,
  functionSchema,
  hooksSchema,
  transportSettingsShape,
  transportDefaults,
  type TransportSettings,
} from './settings-schemas.js';
/** @public Documented in docs/providers/README.md, for a provider with its own transport. */
export { isProvablyUnsent } from './is-provably-unsent.js';
/** @public A phone send's input, parsed and checked against the provider's channels (docs/providers/README.md). */
export { readPhoneSendInput } from './phone-send-input.js';
/** @public Spread into an SMS or WhatsApp capability: `requires: ['sender']` when no default sender is configured. */
export { senderRequirement } from './sender-requirement.js';
export { composeProviders, type ProviderComposition } from './compose-providers.js';
/** @public For a provider package outside this repository that takes message texts per locale and channel. */
export {
  localeKeyPattern,
  parseMessageTemplates,
  pickByLocale,
  type MessageTemplates,
  type MessageTemplateLookup,
} from './message-templates.js';
export { withFailover, type FailoverOptions } from './with-failover.js';
/** @public For a provider package outside this repository that writes a code's SMS (docs/ui.md, "Codes that fill themselves"). */
export {
  androidAppHashSchema,
  fitsOneSms,
  originBoundHostSchema,
  originBoundText,
  type OriginBoundSettings,
} from './origin-bound-message.js';
/** @public An HTTP provider's answers, logged and read as JSON the same way in every provider. */
export {
  acceptedJsonObject,
  answered,
  failedAnswer,
  isAccepted,
  jsonObjectOrNothing,
  readJsonAnswer,
  type AnsweredCall,
  type JsonAnswerReading,
  type JsonReader,
  type RefusedAnswer,
} from './http-answer.js';
/** @public For a provider whose service only delivers a code the caller made (Termii's and Twilio's WhatsApp codes). */
export {
  issueKeyedCode,
  isKeyedCodeRequest,
  checkKeyedCode,
  type KeyedCode,
  type KeyedCodeScheme,
} from './keyed-code.js';
/** @public For an identity vendor's provider: its step input checked, and claims compared with a record inside it. */
export {
  compareClaims,
  isVirtualNin,
  readIdentityStepInput,
  readSelfie,
  type IdentityRecordParts,
  type IdentityStepInput,
} from './identity-claims.js';
export type { FailoverBreakerOptions, FailoverCircuitChange } from './failover-breaker.js';
export {
  createLearningRouter,
  type LearningRouter,
  type LearningRouterOptions,
  type RouteBelief,
  type RouteMeter,
  type RoutePrior,
} from './routing/learning-router.js';
export { formatRouteTable } from './routing/format-route-table.js';
/** @public Documented in docs/routing.md: a learning router's counts kept in the process (its default). */
export { createMemoryRouteCounts } from './routing/memory-route-counts.js';
export type { FailoverRouter, RouteChoice, RouteRequest } from './routing/failover-router.js';
export type { RoutePin } from './routing/route-pins.js';
