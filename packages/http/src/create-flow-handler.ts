import { z } from 'zod';
import type { Verikit } from '@verikit/core';
import { startInputSchema, userEventSchema } from '@verikit/core';
import type { FlowView } from '@verikit/core';
import { StoreError } from '@verikit/core';
import { parseFlowId } from '@verikit/core/inputs';
import { VerikitError } from '@verikit/provider';
import { parseInput } from '@verikit/provider';
import { Cors } from './cors.js';
import { errorResponse } from './error-response.js';
import { ForbiddenError } from './errors/forbidden-error.js';
import { MethodNotAllowedError } from './errors/method-not-allowed-error.js';
import { RouteNotFoundError } from './errors/route-not-found-error.js';
import type { FlowAction, FlowHandler, FlowHandlerOptions, FlowStartRequest } from './flow-handler-options.js';
import { jsonResponse } from './json-response.js';
import { readJsonBody } from './read-json-body.js';
import { matchRoute, normalizeBasePath, routeMethods, type Route } from './route.js';
import { openViewStream } from './view-stream.js';
import { createWebhookHandler } from './webhooks/create-webhook-handler.js';

const defaultHeartbeatMs = 15_000;
const defaultMaxBodyBytes = 16 * 1024;

const optionsSchema = z.object({
  verikit: z.custom<Verikit>(
    (value) => typeof value === 'object' && value !== null && ['start', 'get', 'send', 'subscribe'].every((name) => typeof (value as Record<string, unknown>)[name] === 'function'),
    { error: 'must be a verikit engine (createVerikit)' },
  ),
  basePath: z.string().regex(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/, { error: 'must be a path such as /api/verify' }).optional(),
  webhooks: z.object({}, { error: 'must be the webhook options ({ secret, scheme, … })' }).passthrough().optional(),
  webhookPath: z.union([z.literal(false), z.string().regex(/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/)], { error: 'must be a path such as /webhooks, or false' }).optional(),
  heartbeatMs: z.number().int().min(10).max(2_147_483_647).optional(),
  maxBodyBytes: z.number().int().min(64).max(16 * 1024 * 1024).optional(),
  authorize: z.function().optional(),
  onError: z.function().optional(),
  cors: z
    .object({
      origin: z.union([z.string().min(1), z.array(z.string().min(1)), z.function()], { error: "must be '*', an origin, a list of origins or a function" }),
      credentials: z.boolean().optional(),
      maxAge: z.number().int().min(0).optional(),
      allowHeaders: z.array(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, { error: 'must be header names' })).optional(),
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
 * function: mount it in any runtime that speaks Fetch (Bun, Deno, Cloudflare Workers, Hono,
 * Next.js route handlers) or in node:http through {@link toNodeHandler}.
 *
 * Routes, below `basePath`:
 * - `POST /flows`: start a flow (201 with the view)
 * - `GET /flows/:id`: read the view
 * - `POST /flows/:id/events`: send a user event (`submit-code`, `resend`, `restart`, `cancel`)
 * - `GET /flows/:id/stream`: server-sent events of the view, live
 * - `POST /webhooks`: the provider's webhooks, answered by the webhook handler (`webhooks` options)
 *
 * Errors answer with the typed error's `statusCode` and `{ error: toJSON() }`; anything
 * unexpected is a 500 with a generic message. See docs/http.md.
 *
 * @example
 * const handler = createFlowHandler({ verikit, basePath: '/api/verify', cors: { origin: 'https://app.example.com' } });
 * createServer(toNodeHandler(handler)).listen(3000);
 */
export function createFlowHandler(options: FlowHandlerOptions): FlowHandler {
  parseInput(optionsSchema, options);
  const { verikit } = options;
  const basePath = normalizeBasePath(options.basePath ?? '');
  const webhookPath = options.webhookPath === false ? undefined : (options.webhookPath ?? '/webhooks');
  const heartbeatMs = options.heartbeatMs ?? defaultHeartbeatMs;
  const maxBodyBytes = options.maxBodyBytes ?? defaultMaxBodyBytes;
  const cors = new Cors(options.cors);
  const handleWebhook = webhookPath === undefined ? undefined : createWebhookHandler({ ...options.webhooks, verikit });

  async function authorize(request: Request, flow: FlowView | FlowStartRequest, action: FlowAction): Promise<void> {
    if (options.authorize === undefined) return;
    if ((await options.authorize(request, flow, action)) !== true) throw new ForbiddenError();
  }

  async function dispatch(request: Request, route: Route): Promise<Response> {
    switch (route.name) {
      case 'flows': {
        const input = parseInput(startInputSchema, await readJsonBody(request, maxBodyBytes));
        await authorize(request, input, 'start');
        const view = await verikit.start(input);
        return jsonResponse(view, 201, { location: `${basePath}/flows/${encodeURIComponent(view.id)}` });
      }
      case 'flow': {
        const flowId = parseFlowId(route.flowId);
        const view = await verikit.get(flowId);
        await authorize(request, view, 'read');
        return jsonResponse(view);
      }
      case 'events': {
        const flowId = parseFlowId(route.flowId);
        const event = parseInput(userEventSchema, await readJsonBody(request, maxBodyBytes), 'event');
        await authorize(request, await verikit.get(flowId), 'send');
        return jsonResponse(await verikit.send(flowId, event));
      }
      case 'stream': {
        const flowId = parseFlowId(route.flowId);
        const stream = await openViewStream({
          subscribe: (listener) => verikit.subscribe(flowId, listener),
          ready: () => verikit.subscribed(flowId),
          read: () => verikit.get(flowId),
          check: (view) => authorize(request, view, 'stream'),
          signal: request.signal,
          heartbeatMs,
          lastEventId: lastEventIdOf(request),
        });
        if (stream === undefined) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
        return new Response(stream, {
          headers: {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-accel-buffering': 'no',
            'x-content-type-options': 'nosniff',
          },
        });
      }
      case 'webhooks':
        return handleWebhook!(request);
    }
  }

  function report(error: unknown, request: Request): void {
    try {
      options.onError?.(error, request);
    } catch {
      // A failing logger must not change the answer.
    }
  }

  return async function handleFlowRequest(request: Request): Promise<Response> {
    const route = matchRoute(pathnameOf(request), basePath, webhookPath);
    const isFlowRoute = route !== undefined && route.name !== 'webhooks';
    let response: Response;
    try {
      if (route === undefined) throw new RouteNotFoundError();
      const methods = routeMethods[route.name];
      if (request.method === 'OPTIONS') return isFlowRoute ? cors.preflight(request, methods) : new Cors(undefined).preflight(request, methods);
      if (!methods.includes(request.method)) throw new MethodNotAllowedError(methods);
      response = await dispatch(request, route);
    } catch (error) {
      response = errorResponse(error);
      if (response.status >= 500) report(error, request);
    }
    return route?.name === 'webhooks' ? response : withHeaders(response, cors.headersFor(request));
  };
}

function pathnameOf(request: Request): string {
  try {
    return new URL(request.url).pathname;
  } catch {
    return '';
  }
}

function lastEventIdOf(request: Request): number | undefined {
  const header = request.headers.get('last-event-id')?.trim();
  return header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}

/** Adds headers, copying the response when its headers are immutable (a fetched response). */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const entries = Object.entries(headers);
  if (entries.length === 0) return response;
  try {
    for (const [name, value] of entries) response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const [name, value] of entries) copy.headers.set(name, value);
    return copy;
  }
}
