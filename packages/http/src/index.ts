/**
 * The HTTP API browsers and providers talk to: one Web-standard `(Request) => Promise<Response>`
 * flow handler built on Hono (start, read, send events, a server-sent-events stream of views, the
 * webhook endpoint), the webhook handler on its own, the one table from error code to HTTP status,
 * and an adapter for node:http. The routes are declared once (routes/); each runtime's adapter is built from that
 * table (web/ on Hono, node/ on node:http). Other runtimes take the handlers as they are.
 *
 * @module
 */
export { createFlowHandler } from './create-flow-handler.js';
export type {
  FlowAction,
  FlowAuthorizer,
  FlowHandler,
  FlowHandlerOptions,
  FlowHandlerWebhookOptions,
  FlowStartRequest,
} from './flow-handler-options.js';
export type { CorsOptions } from './routes/route-table.js';
export type { ClientKeyFunction } from './flow-handler-options.js';
export type { StreamLimits } from './stream-limits.js';
export { toHonoHandler, type HonoHandlerOptions, type ConnInfoLike } from './web/hono-handler.js';
/** @public The header names the HTTP API reads, for a client or a proxy of one's own (docs/security.md). */
export {
  flowSecretHeader,
  idempotencyKeyHeader,
  idempotentReplayedHeader,
  ownerHeader,
} from './routes/flow-routes.js';
export type { ErrorResponseBody } from './error-response.js';
export { toNodeHandler, type NodeHandler, type NodeHandlerOptions } from './node/node-adapter.js';
export { answerClientErrors } from './node/node-client-errors.js';
export { httpStatusOf } from './errors/http-status.js';
/** @public The HTTP layer's errors, for an application's `instanceof` checks (docs/http.md). */
export {
  ForbiddenError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
} from './errors/index.js';
export * from './webhooks/index.js';
/** @public The dial-in route's default handset texts, to extend in `screens` (docs/http.md). */
export { defaultDialInScreens, dialInScreensFor } from './dial-in/create-dial-in-handler.js';
export {
  createDialInHandler,
  type DialInHandler,
  type DialInHandlerOptions,
  type DialInScreens,
} from './dial-in/create-dial-in-handler.js';
