import { z } from 'zod';
import type { Verikit, FlowView } from '@verikit/core';
import { InvalidInputError, defaultLogger, parseInput } from '@verikit/provider';
import { StreamCounter } from './stream-limits.js';
import { errorAnswer } from './error-response.js';
import { ForbiddenError } from './errors/forbidden-error.js';
import type { FlowAction, FlowHandler, FlowHandlerOptions, FlowStartRequest } from './flow-handler-options.js';
import { clientKeyResolver, flowRoutes } from './routes/flow-routes.js';
import { jsonAnswer, type RouteAnswer, type RouteRequest } from './routes/route-request.js';
import { Cors, normalizeBasePath, routeMethods, routeTable, type RouteDeclaration } from './routes/route-table.js';
import { honoHandlerOf } from './web/hono-app.js';
import { webhookRoute } from './webhooks/create-webhook-handler.js';
import { webhookBodyBytesSchema } from './webhooks/webhook-options.js';

const defaultHeartbeatMs = 15_000;
const defaultMaxBodyBytes = 16 * 1024;

const optionsSchema = z.object({
  verikit: z.custom<Verikit>(
    (value) =>
      typeof value === 'object' &&
      value !== null &&
      ['start', 'get', 'send', 'subscribe'].every(
        (name) => typeof (value as Record<string, unknown>)[name] === 'function',
      ),
    { error: 'must be a verikit engine (createVerikit)' },
  ),
  basePath: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/, { error: 'must be a path such as /api/verify' })
    .optional(),
  webhooks: z.object({}, { error: 'must be the webhook options ({ secret, scheme, … })' }).passthrough().optional(),
  webhookPath: z
    .union([z.literal(false), z.string().regex(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/)], {
      error: 'must be a path such as /webhooks, or false',
    })
    .optional(),
  heartbeatMs: z.number().int().min(10).max(2_147_483_647).optional(),
  maxBodyBytes: z
    .number()
    .int()
    .min(64)
    .max(16 * 1024 * 1024)
    .optional(),
  maxWebhookBodyBytes: webhookBodyBytesSchema.optional(),
  authorize: z.function().optional(),
  clientKey: z
    .custom((value) => typeof value === 'function', {
      error: 'must be a function (request, address) => string or undefined',
    })
    .optional(),
  trustProxy: z.boolean({ error: 'must be true or false' }).optional(),
  ipv6PrefixBits: z.number().int().min(32).max(128).optional(),
  requireFlowSecret: z.boolean({ error: 'must be true or false' }).optional(),
  proofTtlMs: z
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(1000, { error: 'must be at least 1000 ms' })
    .max(60 * 60_000, { error: 'must be at most 3600000 ms (1 hour)' })
    .optional(),
  streamLimits: z
    .strictObject({
      perClient: z.number().int().min(1).max(1_000_000).optional(),
      perFlow: z.number().int().min(1).max(1_000_000).optional(),
    })
    .optional(),
  onError: z.function().optional(),
  cors: z
    .object({
      origin: z.union([z.string().min(1), z.array(z.string().min(1)), z.function()], {
        error: "must be '*', an origin, a list of origins or a function",
      }),
      credentials: z.boolean().optional(),
      maxAge: z.number().int().min(0).optional(),
      allowHeaders: z
        .array(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, { error: 'must be header names' }))
        .optional(),
    })
    // Any origin with credentials would let every website make cookie-bearing requests and read the answers.
    .refine((cors) => !(cors.origin === '*' && cors.credentials === true), {
      error: "must not be true with origin '*': list the origins that may send credentials",
      path: ['credentials'],
    })
    .optional(),
});

/**
 * Creates the HTTP API browsers talk to, as one Web-standard `(Request) => Promise<Response>`
 * function: mount it in any runtime that speaks Fetch (Bun, Deno, Cloudflare Workers, a Hono app,
 * Next.js route handlers) or in node:http through {@link toNodeHandler}. Its routes are declared once, in one
 * table (decision 1510): on the Web path a Hono app routes them; `toNodeHandler` reads the table from the handler's
 * `routes` and answers them on node's request and response.
 *
 * Routes, below `basePath`:
 * - `POST /flows`: start a flow (201 with the view and its `flowSecret`; `Idempotency-Key` and
 *   `Verikit-Owner` make a repeat return the same flow)
 * - every route of a flow needs the flow secret the start answered with (`Verikit-Flow-Secret`
 *   header), unless `requireFlowSecret: false`; without it the flow does not exist (404)
 * - `GET /flows/:id`: read the view
 * - `POST /flows/:id/events`: send a user event (`submit-code`, `resend`, `restart`, `cancel`)
 * - `GET /flows/:id/stream`: server-sent events of the view, live
 * - `POST /flows/:id/proof`: a proof that the flow is verified (201 `{ token, expiresAt }`), for the app's signup endpoint
 * - `POST /webhooks`: the provider's webhooks, answered as by {@link createWebhookHandler} (`webhooks` options:
 *   given, they must hold a `secret`, a verifier or the explicit `allowUnsigned` opt-out, or this
 *   throws; absent, every webhook is refused with 401 and a warning is logged at creation when the
 *   provider sends webhooks)
 *
 * Errors answer with the status their `code` maps to and `{ error: toJSON() }`; anything
 * unexpected is a 500 with a generic message. See docs/http.md.
 *
 * @example
 * const handler = createFlowHandler({ verikit, basePath: '/api/verify', cors: { origin: 'https://app.example.com' }, webhooks: { secret } });
 * createServer(toNodeHandler(handler)).listen(3000);
 */
export function createFlowHandler(options: FlowHandlerOptions): FlowHandler {
  parseInput(optionsSchema, options);
  const { verikit } = options;
  const logger = options.logger ?? defaultLogger;
  const basePath = normalizeBasePath(options.basePath ?? '');
  const webhookPath = options.webhookPath === false ? undefined : (options.webhookPath ?? '/webhooks');
  const flow = flowRoutes({
    verikit,
    basePath,
    maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
    heartbeatMs: options.heartbeatMs ?? defaultHeartbeatMs,
    authorize: options.authorize === undefined ? undefined : authorize,
    clientKey: clientKeyResolver({
      clientKey: options.clientKey,
      trustProxy: options.trustProxy ?? false,
      ipv6PrefixBits: options.ipv6PrefixBits ?? 64,
      logger,
    }),
    requireFlowSecret: options.requireFlowSecret ?? true,
    proofTtlMs: options.proofTtlMs,
    streams: new StreamCounter(options.streamLimits),
  });
  if (options.requireFlowSecret === false && options.authorize === undefined) {
    logger.warn('verikit.http.flow-secret-off', {
      hint: 'requireFlowSecret: false without authorize: whoever holds a flow id may read, drive and prove that flow',
    });
  }

  async function authorize(request: Request, view: FlowView | FlowStartRequest, action: FlowAction): Promise<void> {
    if ((await options.authorize?.(request, view, action)) !== true) throw new ForbiddenError();
  }

  /** The answer to an error; a 5xx goes to `onError` too (a failing logger does not change the answer). */
  function fail(error: unknown, request: RouteRequest): RouteAnswer {
    const { status, headers, body } = errorAnswer(error);
    if (status >= 500) {
      try {
        options.onError?.(error, request.web);
      } catch {
        // A failing logger must not change the answer.
      }
    }
    return jsonAnswer(body, status, headers);
  }

  const flowRoute = (path: string, methods: readonly string[], work: RouteDeclaration['work']): RouteDeclaration => ({
    path,
    methods,
    cors: true,
    work,
  });
  const routes: RouteDeclaration[] = [];
  // The webhook route exists only where something sends webhooks: a provider with a `webhooks`
  // capability, or a parser of one's own. Termii and Twilio send none, and need no secret. It comes first: a
  // webhook path below /flows is the webhook route's.
  const receivesWebhooks = verikit.webhooks !== undefined || options.webhooks?.parse !== undefined;
  if (webhookPath !== undefined && receivesWebhooks) {
    // The webhook route answers servers, not browsers: no CORS header, whatever the options.
    routes.push({ path: webhookPath, methods: routeMethods.webhooks, cors: false, work: webhookWork(options) });
  }
  routes.push(
    flowRoute('/flows', routeMethods.flows, flow.start),
    flowRoute('/flows/:id', routeMethods.flow, flow.read),
    flowRoute('/flows/:id/events', routeMethods.events, flow.send),
    flowRoute('/flows/:id/stream', routeMethods.stream, flow.stream),
    flowRoute('/flows/:id/proof', routeMethods.proof, flow.proof),
  );
  const table = routeTable({ basePath, cors: new Cors(options.cors), fail }, routes);
  return Object.assign(honoHandlerOf(table), { routes: table });
}

/**
 * The webhook route's work: the webhook options of `createWebhookHandler`, with the handler's `logger` and
 * `maxWebhookBodyBytes` (their deprecated spellings in `webhooks` still taken, decision 1510).
 */
function webhookWork(options: FlowHandlerOptions): RouteDeclaration['work'] {
  const logger = options.logger ?? defaultLogger;
  const configured = options.webhooks !== undefined;
  if (!configured) {
    logger.warn('verikit.inbound.not-configured', {
      hint: 'the provider sends webhooks but createFlowHandler has no webhooks option: every webhook is refused (401) until webhooks: { secret } is set; webhookPath: false leaves the route out',
    });
  }
  const { maxBodyBytes: deprecatedMaxBodyBytes, logger: deprecatedLogger, ...webhooks } = options.webhooks ?? {};
  if (deprecatedMaxBodyBytes !== undefined && options.maxWebhookBodyBytes !== undefined) {
    throw new InvalidInputError([
      {
        field: 'webhooks.maxBodyBytes',
        message: 'is the old name of maxWebhookBodyBytes: give only maxWebhookBodyBytes',
      },
    ]);
  }
  const maxBodyBytes = options.maxWebhookBodyBytes ?? deprecatedMaxBodyBytes;
  // Given webhook options must authenticate (a secret, a verifier, or the explicit opt-out):
  // `webhooks: { secret: process.env.X }` with X unset throws here, naming webhooks.secret.
  return webhookRoute(
    {
      ...webhooks,
      ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }),
      logger: deprecatedLogger ?? logger,
      verikit: options.verikit,
    },
    { fieldPrefix: 'webhooks', requireSecret: configured },
  );
}
