import { type Verikit, FlowNotFoundError, startInputSchema, userEventSchema, type FlowView } from '@verikit/core';
import { parseFlowId } from '@verikit/core/internal';
import { parseInput } from '@verikit/provider';
import { readJsonBody } from './body/read-json-body.js';
import { errorAnswer } from './error-response.js';
import type { FlowAction, FlowStartRequest } from './flow-handler-options.js';
import { jsonResponse } from './json-response.js';
import { startOptionsOf } from './start-options.js';
import type { StreamCounter } from './stream-limits.js';
import { openViewStream } from './view-stream.js';

/** What the flow routes need: the engine and the handler's checked options. */
export interface FlowRouteDeps {
  readonly verikit: Verikit;
  /** The normalized base path, for the `Location` of a started flow. */
  readonly basePath: string;
  readonly maxBodyBytes: number;
  readonly heartbeatMs: number;
  /** The send guard's client key of a request (docs/abuse.md). */
  readonly clientKey: (request: Request, env: unknown) => Promise<string | undefined>;
  /** Throws a `ForbiddenError` unless the `authorize` hook allows the action; undefined without a hook. */
  readonly authorize:
    | ((request: Request, flow: FlowView | FlowStartRequest, action: FlowAction) => Promise<void>)
    | undefined;
  /** Whether read, stream, events and proof require the flow secret (the default), or leave it to `authorize`. */
  readonly requireFlowSecret: boolean;
  /** The life of an issued proof, in ms; undefined: the engine's default. */
  readonly proofTtlMs: number | undefined;
  /** Counts live streams per client and per flow. */
  readonly streams: StreamCounter;
}

/** The request header that carries the flow secret (never a URL: URLs end up in logs and histories). */
export const flowSecretHeader = 'verikit-flow-secret';

/** One flow route: the request, the `:id` path parameter (percent-decoded, not yet validated) and the server's bindings. */
export type FlowRoute = (request: Request, flowId: string | undefined, env?: unknown) => Promise<Response>;

/** Headers of the server-sent-events answer: never cached, never buffered by a proxy. */
const streamHeaders: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
};

/**
 * The work of each flow route, in the order of checks of decision 0401: id format, body (type,
 * size, JSON, schema), the flow read, `authorize`, and only then the engine. Routing, methods and
 * error answers are the handler's.
 */
export function flowRoutes(
  deps: FlowRouteDeps,
): Readonly<Record<'start' | 'read' | 'send' | 'stream' | 'proof', FlowRoute>> {
  const { verikit, basePath, maxBodyBytes, heartbeatMs } = deps;
  const authorize = deps.authorize ?? (async () => undefined);
  /**
   * The flow id of a request that holds its flow secret. A missing or wrong secret is answered as an
   * unknown flow, before the store is read: it cannot tell a live flow from an unknown one.
   */
  function ownedFlowId(request: Request, id: string | undefined): string {
    const flowId = parseFlowId(id ?? '');
    if (deps.requireFlowSecret && !verikit.isFlowSecret(flowId, request.headers.get(flowSecretHeader)))
      throw new FlowNotFoundError(flowId);
    return flowId;
  }
  return {
    async start(request, _id, env) {
      const input = parseInput(startInputSchema, await readJsonBody(request, maxBodyBytes));
      await authorize(request, input, 'start');
      const client = await deps.clientKey(request, env);
      const view = await verikit.start(input, {
        ...startOptionsOf(request),
        ...(client === undefined ? {} : { client }),
      });
      // The flow secret goes only to whoever started the flow (or repeats its start with the same key or owner).
      return jsonResponse({ ...view, flowSecret: verikit.flowSecret(view.id) }, 201, {
        location: `${basePath}/flows/${encodeURIComponent(view.id)}`,
      });
    },
    async read(request, id) {
      const flowId = ownedFlowId(request, id);
      const view = await verikit.get(flowId);
      await authorize(request, view, 'read');
      return jsonResponse(view);
    },
    async send(request, id, env) {
      const flowId = ownedFlowId(request, id);
      const event = parseInput(userEventSchema, await readJsonBody(request, maxBodyBytes), 'event');
      // The hook needs the flow; without one, `send` reads it anyway and answers the same 404.
      if (deps.authorize !== undefined) await deps.authorize(request, await verikit.get(flowId), 'send');
      const client =
        event.type === 'resend' || event.type === 'restart' ? await deps.clientKey(request, env) : undefined;
      return jsonResponse(await verikit.send(flowId, event, client === undefined ? undefined : { client }));
    },
    async stream(request, id, env) {
      const flowId = ownedFlowId(request, id);
      // Taken before the subscription, given back when it ends (every way a stream ends unsubscribes once).
      const release = deps.streams.take(await deps.clientKey(request, env), flowId);
      const stream = await openViewStream({
        subscribe: (listener) => {
          const unsubscribe = verikit.subscribe(flowId, listener);
          return () => {
            unsubscribe();
            release();
          };
        },
        ready: () => verikit.subscribed(flowId),
        read: () => verikit.get(flowId),
        check: (view) => authorize(request, view, 'stream'),
        signal: request.signal,
        heartbeatMs,
        describeError: (error) => errorAnswer(error).body,
        lastEventId: lastEventIdOf(request),
      }).catch((error: unknown) => {
        release();
        throw error;
      });
      if (stream === undefined) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
      return new Response(stream, { headers: streamHeaders });
    },
    // A proof that the flow is verified, for the browser to hand to the app's signup endpoint, which
    // redeems it with `verikit.redeemProof`. No body is read: the proof's life is the server's choice.
    async proof(request, id) {
      const flowId = ownedFlowId(request, id);
      // As for `send`: the hook needs the flow; without one, `issueProof` reads it and answers the same 404.
      if (deps.authorize !== undefined) await deps.authorize(request, await verikit.get(flowId), 'proof');
      const { token, expiresAt } = await verikit.issueProof(
        flowId,
        deps.proofTtlMs === undefined ? undefined : { ttlMs: deps.proofTtlMs },
      );
      return jsonResponse({ token, expiresAt }, 201);
    },
  };
}

function lastEventIdOf(request: Request): number | undefined {
  const header = request.headers.get('last-event-id')?.trim();
  return header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}
