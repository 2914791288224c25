import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { Verikit, FlowView } from '@verikit/core';
import { defaultLogger, parseInput } from '@verikit/provider';
import { clientKeyResolver } from './client-key.js';
import { StreamCounter } from './stream-limits.js';
import { Cors, corsMiddleware, type CorsEnv } from './cors.js';
import { errorAnswer } from './error-response.js';
import { ForbiddenError } from './errors/forbidden-error.js';
import { MethodNotAllowedError } from './errors/method-not-allowed-error.js';
import { RouteNotFoundError } from './errors/route-not-found-error.js';
import type { FlowAction, FlowHandler, FlowHandlerOptions, FlowStartRequest } from './flow-handler-options.js';
import { flowRoutes, type FlowRoute } from './flow-routes.js';
import { responseOf } from './json-response.js';
import { nodeFlowRoutes, withNodeFlowRoutes } from './node-flow-routes.js';
import { jsonAnswer, webRouteRequest, type RouteAnswer, type RouteRequest } from './route-request.js';
import { normalizeBasePath, routeMethods } from './route.js';
import { webhookHandlerFor } from './webhooks/create-webhook-handler.js';

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
 * Next.js route handlers) or in node:http through {@link toNodeHandler}. Inside, it is a Hono app:
 * Hono routes, our CORS middleware, and one error answer for everything.
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
 * - `POST /webhooks`: the provider's webhooks, answered by the webhook handler (`webhooks` options:
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
  const routes = flowRoutes({
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

  async function authorize(request: Request, flow: FlowView | FlowStartRequest, action: FlowAction): Promise<void> {
    if ((await options.authorize?.(request, flow, action)) !== true) throw new ForbiddenError();
  }

  /** The answer to an error; a 5xx goes to `onError` too (a failing logger does not change the answer). */
  function failAnswer(error: unknown, request: () => Request): RouteAnswer {
    const { status, headers, body } = errorAnswer(error);
    if (status >= 500) {
      try {
        options.onError?.(error, request());
      } catch {
        // A failing logger must not change the answer.
      }
    }
    return jsonAnswer(body, status, headers);
  }
  const fail = (error: unknown, request: Request): Response => responseOf(failAnswer(error, () => request));

  /** Runs a flow route and answers its errors: the one way the Web path and Node's fast path answer (1320). */
  async function answer(run: FlowRoute, request: RouteRequest, id: string | undefined): Promise<RouteAnswer> {
    try {
      return await run(request, id);
    } catch (error) {
      return failAnswer(error, () => request.web);
    }
  }

  /** One route on the Web path: its methods (405 with `Allow` for the others), its preflight, its work. */
  function route(methods: readonly string[], work: (c: Context<CorsEnv>) => Promise<Response>, cors: Cors) {
    return async (c: Context<CorsEnv>): Promise<Response> => {
      const request = c.req.raw;
      try {
        if (request.method === 'OPTIONS') {
          c.set('corsDone', true);
          return cors.preflight(request, methods);
        }
        if (!methods.includes(request.method)) throw new MethodNotAllowedError(methods);
        return await work(c);
      } catch (error) {
        return fail(error, request);
      }
    };
  }
  const flowRoute = (methods: readonly string[], run: FlowRoute) =>
    route(
      methods,
      async (c) => responseOf(await answer(run, webRouteRequest(c.req.raw, c.env), c.req.param('id'))),
      flowCors,
    );

  const flowCors = new Cors(options.cors);
  const app = new Hono<CorsEnv>({ strict: false });
  if (options.cors !== undefined) app.use(corsMiddleware(new Cors(options.cors)));
  app.notFound((c) => fail(new RouteNotFoundError(), c.req.raw));
  app.onError((error, c) => fail(error, c.req.raw));
  const api = basePath === '' ? app : app.basePath(basePath);
  // The webhook route exists only where something sends webhooks: a provider with a `webhooks`
  // capability, or a parser of one's own. Termii and Twilio send none, and need no secret.
  const receivesWebhooks = verikit.webhooks !== undefined || options.webhooks?.parse !== undefined;
  if (webhookPath !== undefined && receivesWebhooks) {
    const configured = options.webhooks !== undefined;
    if (!configured) {
      logger.warn('verikit.webhook.not-configured', {
        hint: 'the provider sends webhooks but createFlowHandler has no webhooks option: every webhook is refused (401) until webhooks: { secret } is set; webhookPath: false leaves the route out',
      });
    }
    // Given webhook options must authenticate (a secret, a verifier, or the explicit opt-out):
    // `webhooks: { secret: process.env.X }` with X unset throws here, naming webhooks.secret.
    const handleWebhook = webhookHandlerFor(
      { logger, ...options.webhooks, verikit },
      { fieldPrefix: 'webhooks', requireSecret: configured },
    );
    const webhook = route(routeMethods.webhooks, (c) => handleWebhook(c.req.raw), new Cors(undefined));
    // The webhook route answers servers, not browsers: no CORS header, whatever the options.
    api.all(webhookPath, (c) => {
      c.set('corsDone', true);
      return webhook(c);
    });
  }
  api.all('/flows', flowRoute(routeMethods.flows, routes.start));
  api.all('/flows/:id', flowRoute(routeMethods.flow, routes.read));
  api.all('/flows/:id/events', flowRoute(routeMethods.events, routes.send));
  api.all('/flows/:id/stream', flowRoute(routeMethods.stream, routes.stream));
  api.all('/flows/:id/proof', flowRoute(routeMethods.proof, routes.proof));

  async function handleFlowRequest(request: Request, env?: unknown): Promise<Response> {
    try {
      return await app.fetch(request, env);
    } catch (error) {
      // Hono rethrows what is not an `Error` (a hook that throws a string): answered all the same.
      return fail(error, request);
    }
  }
  // A webhook path below /flows would share paths with the flow routes: then Hono alone routes.
  if (webhookPath !== undefined && receivesWebhooks && webhookPath.startsWith('/flows')) return handleFlowRequest;
  const node = (run: FlowRoute, methods: readonly string[]) => ({ run, methods });
  const table = {
    prefix: `${basePath}/flows`,
    start: node(routes.start, routeMethods.flows),
    read: node(routes.read, routeMethods.flow),
    events: node(routes.send, routeMethods.events),
    stream: node(routes.stream, routeMethods.stream),
    proof: node(routes.proof, routeMethods.proof),
  };
  const cors =
    options.cors === undefined ? undefined : (request: RouteRequest) => flowCors.headersFor(request.header('origin'));
  return withNodeFlowRoutes(handleFlowRequest, nodeFlowRoutes(table, answer, cors));
}
