import type { z } from 'zod';
import type { Logger } from '@verikit/provider';
import type { Verikit, startInputSchema, FlowView } from '@verikit/core';
import type { StreamLimits } from './stream-limits.js';
import type { CorsOptions, RouteTable } from './routes/route-table.js';
import type { createWebhookHandler, WebhookHandlerOptions } from './webhooks/create-webhook-handler.js';

/**
 * Names the client a request comes from, for the send guard's per-client limit (docs/abuse.md).
 * `address` is the client address the server saw (IPv6 grouped per /64), when the adapter knows it
 * (`toNodeHandler`, @hono/node-server's bindings, or `toHonoHandler`). Return undefined to
 * leave the request out of the per-client limit.
 */
export type ClientKeyFunction = (
  request: Request,
  address: string | undefined,
) => string | undefined | Promise<string | undefined>;

/**
 * What a request wants to do with a flow, as `authorize` sees it. `send` covers every user event,
 * `cancel` included; `proof` asks for a proof that the flow is verified.
 */
export type FlowAction = 'start' | 'read' | 'send' | 'stream' | 'proof';

/** A validated start request, as `authorize` sees it for `start`: the flow kind and the fields sent. */
export type FlowStartRequest = z.output<typeof startInputSchema>;

/**
 * Decides whether `request` may do `action`. For `start` it gets the validated start request
 * (its `kind` and fields, so it can check the phone number belongs to the signed-in user); for the
 * other actions, the flow's current view. Only `true` allows; anything else is a 403.
 */
export type FlowAuthorizer = (
  request: Request,
  flow: FlowView | FlowStartRequest,
  action: FlowAction,
) => boolean | Promise<boolean>;

/** Options of {@link createFlowHandler}. */
export interface FlowHandlerOptions {
  /** The engine the routes drive. */
  verikit: Verikit;
  /** Where the routes live: `'/api/verify'` serves `/api/verify/flows`. Default `''`. */
  basePath?: string;
  /** Cross-origin access for browser apps on other origins. Default: none (same origin only). */
  cors?: CorsOptions;
  /**
   * Called before every flow action, after the flow secret is checked; deny with anything but `true`
   * (403). Default: allow. It adds the app's own policy (the signed-in user owns this number) on
   * top of the flow secret (docs/security.md).
   */
  authorize?: FlowAuthorizer;
  /**
   * Whether reading, following, driving and proving a flow needs its flow secret (the
   * `Verikit-Flow-Secret` header; `@verikit/client` sends it). Default `true`. `false` is the opt-out
   * for apps that authorize every request by their own session in `authorize`: the flow id alone then
   * opens the flow, so a warning is logged at creation when no `authorize` is given.
   */
  requireFlowSecret?: boolean;
  /**
   * How long a proof from `POST /flows/:id/proof` lives, in ms: long enough for the rest of your form
   * (a phone proof waits while the user fills in the BVN step). Default 5 minutes, at most 1 hour.
   */
  proofTtlMs?: number;
  /** Live streams this server holds per client and per flow; the excess is a 429 with `Retry-After`. Default 20 and 5. */
  streamLimits?: StreamLimits;
  /** How much of an IPv6 address names one client, in bits. Default 64 (one subscriber's network). */
  ipv6PrefixBits?: number;
  /**
   * How the webhook route verifies what it receives: the secret, scheme and window (docs/webhooks.md).
   * When given, `secret` is required (or a verifier of your own, or the explicit `allowUnsigned`):
   * `{ secret: process.env.X }` with X unset throws at creation, naming `webhooks.secret`.
   * Default: none, so every webhook is refused (401), and a warning is logged at creation. Ignored
   * when the provider sends no webhooks (Termii, Twilio): the route is off, and no secret is needed.
   */
  webhooks?: FlowHandlerWebhookOptions;
  /**
   * The webhook route, below `basePath`, answered by {@link createWebhookHandler} with the `webhooks`
   * options. Default `'/webhooks'`; `false` leaves the route out (404). Off whatever this says when
   * the provider has no `webhooks` capability and `webhooks.parse` is not given.
   */
  webhookPath?: string | false;
  /** Interval of SSE heartbeat comments, in ms. Default 15,000. */
  heartbeatMs?: number;
  /** The largest JSON body the flow routes take, in bytes. Default 16 KiB. */
  maxBodyBytes?: number;
  /** The largest body the webhook route takes, in bytes. Default 65,536; at most 1 MiB. */
  maxWebhookBodyBytes?: number;
  /**
   * Who the engine's send guard counts a start or a resend against (docs/abuse.md). Default: the
   * client address (known through {@link toNodeHandler}, @hono/node-server or `toHonoHandler`), or
   * with `trustProxy` the last `X-Forwarded-For` entry, IPv6 grouped per /64; a request with neither
   * is left out of the per-client limit (a warning says so once), never counted in a shared bucket.
   */
  clientKey?: ClientKeyFunction;
  /**
   * This server sits behind one reverse proxy that appends the client address to `X-Forwarded-For`:
   * the default client key is then its last entry. Default `false` (a client could set the header).
   */
  trustProxy?: boolean;
  /**
   * Where the handler logs (a client key it cannot read, webhooks refused or not configured), the webhook
   * route's lines included. Default: `defaultLogger` (warnings and errors to the console). Give the engine's
   * logger to read every verikit line in one place.
   */
  logger?: Logger;
  /**
   * Called with every error answered with a 5xx (store or provider down, or an unexpected
   * failure, whose details the client never sees), for the application's logs.
   */
  onError?: (error: unknown, request: Request) => void;
}

/**
 * The webhook route's options under {@link createFlowHandler}: those of {@link createWebhookHandler} but the engine,
 * which is the handler's. The body cap and the logger are the handler's own (`maxWebhookBodyBytes`, `logger`).
 */
export interface FlowHandlerWebhookOptions extends Omit<WebhookHandlerOptions, 'verikit' | 'logger' | 'maxBodyBytes'> {
  /**
   * @deprecated Since 0.3: give the handler's `logger`, which the webhook route uses. Taken until the next minor
   * release (docs/migration.md).
   */
  logger?: Logger;
  /**
   * @deprecated Since 0.3: give the handler's `maxWebhookBodyBytes`. Taken until the next minor release
   * (docs/migration.md).
   */
  maxBodyBytes?: number;
}

/**
 * A Web-standard request handler. The second argument is the server's bindings, passed on by
 * {@link toNodeHandler} and @hono/node-server (`{ incoming }`), for the client address.
 */
export interface FlowHandler {
  (request: Request, env?: unknown): Promise<Response>;
  /**
   * The handler's routes, declared once: `toNodeHandler` answers them on node's request and response from this
   * table (decision 1510). A function that wraps the handler has none, and is served through its Web path.
   *
   * @internal
   */
  readonly routes: RouteTable;
}
