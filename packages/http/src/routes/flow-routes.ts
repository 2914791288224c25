import {
  type Verikit,
  FlowNotFoundError,
  InvalidInputError,
  isReplayed,
  userEventSchema,
  type FlowView,
} from '@verikit/core';
import { parseFlowId } from '@verikit/core/internal';
import { isIP } from 'node:net';
import { parseInput, type Logger } from '@verikit/provider';
import { errorAnswer } from '../error-response.js';
import type { ClientKeyFunction, FlowAction, FlowStartRequest } from '../flow-handler-options.js';
import type { StreamCounter } from '../stream-limits.js';
import { LiveStreams } from '../view-stream.js';
import { readableOf } from '../web-event-stream.js';
import { jsonAnswer, peerAddressOf, readJsonBody, type RouteRequest } from './route-request.js';
import type { RouteWork } from './route-table.js';

/** What the flow routes need: the engine and the handler's checked options. */
export interface FlowRouteDeps {
  readonly verikit: Verikit;
  /** The normalized base path, for the `Location` of a started flow. */
  readonly basePath: string;
  readonly maxBodyBytes: number;
  readonly heartbeatMs: number;
  /** The send guard's client key of a request (docs/abuse.md). */
  readonly clientKey: (request: RouteRequest) => Promise<string | undefined>;
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

/** The request header naming a start, as Stripe's: a repeat with the same key returns the same flow. */
export const idempotencyKeyHeader = 'idempotency-key';

/**
 * The request header of a browser's owner token: a random value the client keeps (in
 * `localStorage` by default) and sends with every start, so a second tab or a reload starting the
 * same verification joins the live flow instead of sending a second code.
 */
export const ownerHeader = 'verikit-owner';

const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/;
const ownerPattern = /^[A-Za-z0-9_-]{22,128}$/;

/** The answer header of a replayed call, as Stripe's: the same key was seen, nothing was sent again. */
export const idempotentReplayedHeader = 'idempotent-replayed';

/** `Idempotent-Replayed: true` for an answer the engine replayed (`isReplayed`), else nothing. */
function replayedHeaders(replayed: boolean): Readonly<Record<string, string>> {
  return replayed ? { [idempotentReplayedHeader]: 'true' } : {};
}

/** A request's `Idempotency-Key`, checked (`invalid_input` naming the header), or undefined. */
function idempotencyKeyOf(request: RouteRequest): string | undefined {
  const key = request.header(idempotencyKeyHeader)?.trim();
  if (key === undefined || idempotencyKeyPattern.test(key)) return key;
  throw new InvalidInputError([{ field: idempotencyKeyHeader, message: 'must be 1 to 255 visible ASCII characters' }]);
}

/**
 * The engine's start options a request carries: its `Idempotency-Key` and its owner token. A value
 * of the wrong form is refused (`invalid_input` naming the header), never echoed.
 */
function startOptionsOf(request: RouteRequest): { idempotencyKey?: string; owner?: string } {
  const key = request.header(idempotencyKeyHeader)?.trim();
  const owner = request.header(ownerHeader)?.trim();
  const issues = [
    ...(key === undefined || idempotencyKeyPattern.test(key)
      ? []
      : [{ field: idempotencyKeyHeader, message: 'must be 1 to 255 visible ASCII characters' }]),
    ...(owner === undefined || ownerPattern.test(owner)
      ? []
      : [{ field: ownerHeader, message: 'must be 22 to 128 characters of A-Z, a-z, 0-9, _ and -' }]),
  ];
  if (issues.length > 0) throw new InvalidInputError(issues);
  return {
    ...(key === undefined ? {} : { idempotencyKey: key }),
    ...(owner === undefined ? {} : { owner: `browser:${owner}` }),
  };
}

/** The last `X-Forwarded-For` entry (the address the proxy in front saw); junk there is refused. */
function forwardedAddressOf(request: RouteRequest): string | undefined {
  const header = request.header('x-forwarded-for');
  if (header === undefined) return undefined;
  const last = header.split(',').at(-1)?.trim() ?? '';
  if (isIP(last.replace(/^\[|\]$/g, '')) === 0) {
    throw new InvalidInputError([
      { field: 'x-forwarded-for', message: 'must end with the client address your proxy appends' },
    ]);
  }
  return last.replace(/^\[|\]$/g, '');
}

/** The eight 16-bit groups of an IPv6 address (zone dropped, an IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4 !== null) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((group) => Number.parseInt(group, 16));
}

/**
 * The key of a client address: an IPv4 address as is (an IPv4-mapped IPv6 address too), an IPv6
 * address by its first `ipv6PrefixBits` bits (a /64 is one subscriber: one network hands out all of
 * it). Undefined for anything that is not an address.
 */
export function clientAddressKey(address: string, ipv6PrefixBits: number): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const version = isIP(bare);
  if (version === 4) return bare;
  if (version !== 6) return undefined;
  const groups = ipv6Groups(bare);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.');
  }
  const kept = groups.map((group, index) => {
    const bits = Math.max(0, Math.min(16, ipv6PrefixBits - index * 16));
    return bits === 0 ? 0 : group & ((0xffff << (16 - bits)) & 0xffff);
  });
  return `${kept.map((group) => group.toString(16)).join(':')}/${ipv6PrefixBits}`;
}

/**
 * The client key of each request: the application's `clientKey`, else the client address (with
 * `trustProxy`, the last `X-Forwarded-For` entry), IPv6 grouped per `ipv6PrefixBits`. A request
 * whose client is unknown is left out of the per-client limit, never counted in one shared bucket
 * (one client would block everyone): one warning says so, the first time.
 */
export function clientKeyResolver(options: {
  clientKey: ClientKeyFunction | undefined;
  trustProxy: boolean;
  ipv6PrefixBits: number;
  logger: Logger;
}): (request: RouteRequest) => Promise<string | undefined> {
  const { clientKey, trustProxy, ipv6PrefixBits, logger } = options;
  let warned = false;
  return async (request) => {
    const raw = (trustProxy ? forwardedAddressOf(request) : undefined) ?? peerAddressOf(request.env);
    const address = raw === undefined ? undefined : clientAddressKey(raw, ipv6PrefixBits);
    if (clientKey !== undefined) {
      const key = await clientKey(request.web, address);
      if (key === undefined || (typeof key === 'string' && key.length >= 1 && key.length <= 512)) return key;
      throw new TypeError('clientKey must return a string of 1 to 512 characters, or undefined');
    }
    if (address !== undefined) return address;
    if (!warned) {
      warned = true;
      logger.warn('verikit.guard.no-client-address', {
        hint: 'the flow handler was called without the client address: the per-client limit is skipped. Serve it with toNodeHandler, @hono/node-server, or toHonoHandler(handler, { getConnInfo })',
      });
    }
    return undefined;
  };
}

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
 * error answers are the route table's, on every adapter alike (decision 1510).
 */
export function flowRoutes(
  deps: FlowRouteDeps,
): Readonly<Record<'start' | 'read' | 'send' | 'stream' | 'proof', RouteWork>> {
  const { verikit, basePath, maxBodyBytes, heartbeatMs } = deps;
  const live = new LiveStreams({ source: verikit, counter: deps.streams, heartbeatMs, describeError });
  // The hook gets the Web `Request`, which the Node adapter builds only when a hook asks for it.
  const authorize = async (request: RouteRequest, flow: FlowView | FlowStartRequest, action: FlowAction) => {
    if (deps.authorize !== undefined) await deps.authorize(request.web, flow, action);
  };
  /**
   * The flow id of a request that holds its flow secret. A missing or wrong secret is answered as an
   * unknown flow, before the store is read: it cannot tell a live flow from an unknown one.
   */
  function ownedFlowId(request: RouteRequest, id: string | undefined): string {
    const flowId = parseFlowId(id ?? '');
    if (deps.requireFlowSecret && !verikit.isFlowSecret(flowId, request.header(flowSecretHeader)))
      throw new FlowNotFoundError(flowId);
    return flowId;
  }
  return {
    async start(request) {
      const input = verikit.parseStartInput(await readJsonBody(request, maxBodyBytes));
      await authorize(request, input, 'start');
      const client = await deps.clientKey(request);
      const options = startOptionsOf(request);
      const view = await verikit.start(input, { ...options, ...(client === undefined ? {} : { client }) });
      // The flow secret goes only to whoever started the flow (or repeats its start with the same key or owner).
      return jsonAnswer({ ...view, flowSecret: verikit.flowSecret(view.id) }, 201, {
        location: `${basePath}/flows/${encodeURIComponent(view.id)}`,
        // Only a start with an idempotency key is ever a replay (a join through the owner token is not).
        ...replayedHeaders(options.idempotencyKey !== undefined && isReplayed(view)),
      });
    },
    async read(request, id) {
      const flowId = ownedFlowId(request, id);
      const view = await verikit.get(flowId);
      await authorize(request, view, 'read');
      return jsonAnswer(view);
    },
    async send(request, id) {
      const flowId = ownedFlowId(request, id);
      const event = parseInput(userEventSchema, await readJsonBody(request, maxBodyBytes), 'event');
      // The hook needs the flow; without one, `send` reads it anyway and answers the same 404.
      if (deps.authorize !== undefined) await deps.authorize(request.web, await verikit.get(flowId), 'send');
      const sends = event.type === 'resend' || event.type === 'restart';
      const client = sends ? await deps.clientKey(request) : undefined;
      // A resend or restart takes an `Idempotency-Key` as a start does; other events are idempotent by their nature.
      const idempotencyKey = sends ? idempotencyKeyOf(request) : undefined;
      const view = await verikit.send(flowId, event, {
        ...(client === undefined ? {} : { client }),
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
      });
      return jsonAnswer(view, 200, replayedHeaders(idempotencyKey !== undefined && isReplayed(view)));
    },
    async stream(request, id) {
      const flowId = ownedFlowId(request, id);
      // The checks run here; what the stream keeps is its own object, never the request (decision 1330).
      const stream = await live.open({
        flowId,
        client: await deps.clientKey(request),
        lastEventId: lastEventIdOf(request.header('last-event-id')),
        check: (view) => authorize(request, view, 'stream'),
      });
      // 204: the flow is done and the client saw its last version (an EventSource stops reconnecting).
      if (stream === undefined) return { status: 204, headers: { 'cache-control': 'no-store' } };
      // On Node (toNodeHandler) the adapter writes the events straight to node's response.
      if (request.incoming !== undefined) return { status: 200, headers: streamHeaders, stream };
      return { status: 200, headers: streamHeaders, body: readableOf(stream, request.web.signal) };
    },
    // A proof that the flow is verified, for the browser to hand to the app's signup endpoint, which
    // redeems it with `verikit.redeemProof`. No body is read: the proof's life is the server's choice.
    async proof(request, id) {
      const flowId = ownedFlowId(request, id);
      // As for `send`: the hook needs the flow; without one, `issueProof` reads it and answers the same 404.
      if (deps.authorize !== undefined) await deps.authorize(request.web, await verikit.get(flowId), 'proof');
      const { token, expiresAt } = await verikit.issueProof(
        flowId,
        deps.proofTtlMs === undefined ? undefined : { ttlMs: deps.proofTtlMs },
      );
      return jsonAnswer({ token, expiresAt }, 201);
    },
  };
}

/** The body of a stream's `error` event: the body an error answer would have. */
function describeError(error: unknown): unknown {
  return errorAnswer(error).body;
}

function lastEventIdOf(value: string | undefined): number | undefined {
  const header = value?.trim();
  return header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}
