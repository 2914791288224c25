/**
 * The verikit flow client, framework-free, for browsers and Node: start, send and read flows over
 * the routes of `@verikit/http`, and a {@link FlowObserver} (TanStack Query's observer shape) that
 * follows a flow live over server-sent events, reconnects without losing or reordering changes,
 * re-reads when the resend cooldown or the expiry passes, derives countdowns on the server's clock
 * and closes when the flow is done. No runtime dependencies. Guide: docs/ui.md.
 *
 * @module
 */
export {
  createFlowClient,
  type FlowClient,
  type FlowClientOptions,
  type FlowRequestOptions,
} from './create-flow-client.js';
export {
  FlowObserver,
  type FlowObserverListener,
  type FlowObserverOptions,
  type FlowObserverResult,
} from './flow-observer.js';
export type { FlowConnection } from './follow-flow.js';
export { FlowClientError, type FlowClientErrorOptions, type FlowClientIssue } from './errors/flow-client-error.js';
export type {
  FlowEvent,
  FlowEventType,
  FlowKind,
  FlowStatus,
  FlowView,
  FlowViewError,
  StartFlowInput,
} from './flow-view.js';
export type { FlowClientCredentials, FlowClientHeaders, FlowClientHeaderValues, FlowProof } from './transport.js';
export type { FlowClientTimers } from './timers.js';
export type { FlowHandleStorage } from './flow-handles.js';
/** @public Documented in docs/ui.md: the text of an error, from its message id, for a UI of one's own. */
export {
  defaultCatalogues,
  englishMessages,
  errorMessage,
  formatMessage,
  frenchMessages,
  messages,
  type FormatMessageOptions,
  type MessageCatalogue,
  type MessageCatalogues,
  type MessageSource,
} from './messages.js';
/** @public Building blocks for a UI binding other than React (docs/architecture.md, "Where a new thing goes"). */
export { remainingMs } from './countdown.js';
/** @public Building blocks for a UI binding other than React (docs/architecture.md, "Where a new thing goes"). */
export { ServerClock } from './server-clock.js';
/** @public Building blocks for a UI binding other than React (docs/architecture.md, "Where a new thing goes"). */
export { EventStreamParser, type EventStreamHandlers, type ServerSentEvent } from './sse-parser.js';
/** @public Documented in docs/ui.md ("Codes that fill themselves"): origin-bound codes and WebOTP, for a UI of one's own. */
export { isCodeForHost, parseOriginBoundCode, type OriginBoundCode } from './one-time-codes/origin-bound-code.js';
/** @public Documented in docs/ui.md ("Codes that fill themselves"). */
export { hasWebOtp, receiveWebOtp } from './one-time-codes/web-otp.js';
