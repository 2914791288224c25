import { badResponse, errorFromResponse, networkError } from './errors/error-from-response.js';
import { invalidArgument } from './errors/flow-client-error.js';
import type { FlowView } from './flow-view.js';
import { flowIdPattern, parseView } from './parse-view.js';
import { readBoundedJson } from './read-body.js';
import { ServerClock } from './server-clock.js';
import type { FlowHandles } from './flow-handles.js';
import type { FlowClientTimers } from './timers.js';

/** Header values in any form `new Headers()` takes (written out, so Node users need no DOM types). */
export type FlowClientHeaderValues =
  | Headers
  | Readonly<Record<string, string>>
  | ReadonlyArray<readonly [string, string]>;

/** Headers sent with every request: fixed, or computed per request (a token that rotates). */
export type FlowClientHeaders =
  | FlowClientHeaderValues
  | (() => FlowClientHeaderValues | Promise<FlowClientHeaderValues>);

/** A proof that a flow is verified, for the app's signup endpoint to redeem. */
export interface FlowProof {
  /** The opaque, single-use token. */
  readonly token: string;
  /** When the server stops accepting it (server clock, ms since the epoch). */
  readonly expiresAt: number;
}

/** Whether cookies go with requests, as `fetch`'s `credentials`. */
export type FlowClientCredentials = 'omit' | 'same-origin' | 'include';

/** Checks a flow id before it goes into a URL: a malformed one is an `invalid_input` on `flowId`. */
export function checkFlowId(flowId: unknown): string {
  if (typeof flowId !== 'string' || !flowIdPattern.test(flowId)) throw invalidArgument('flowId', 'is not a flow id');
  return flowId;
}

/** The abort reason of a signal, or the error itself: an abort the caller asked for is not a network error. */
function abortReason(signal: AbortSignal | undefined, error: unknown): unknown {
  return signal?.aborted === true ? signal.reason : networkError(error);
}

/**
 * The HTTP side of the client: builds URLs below the base, sends the headers, turns answers into
 * views or rebuilt errors, and feeds every answer's `Date` header (and every view's `serverTime`)
 * to the shared {@link ServerClock}.
 */
export class FlowTransport {
  readonly baseUrl: string;
  readonly clock = new ServerClock();
  readonly timers: FlowClientTimers;
  readonly #fetch: typeof fetch;
  readonly #headers: FlowClientHeaders | undefined;
  readonly #credentials: FlowClientCredentials | undefined;
  /** The flow handles: every request about a flow carries its secret in a header, never in the URL. */
  readonly handles: FlowHandles;

  constructor(
    baseUrl: string,
    fetchFunction: typeof fetch,
    headers: FlowClientHeaders | undefined,
    credentials: FlowClientCredentials | undefined,
    timers: FlowClientTimers,
    handles: FlowHandles,
  ) {
    this.handles = handles;
    this.baseUrl = baseUrl;
    this.#fetch = fetchFunction;
    this.#headers = headers;
    this.#credentials = credentials;
    this.timers = timers;
  }

  /** Sends a request to a path below the base (`/flows/abc/events`); one about a flow carries that flow's secret. */
  async #send(
    path: string,
    init: RequestInit & { headers: Record<string, string> },
    flowId: string | undefined,
  ): Promise<{ response: Response; sentAt: number; receivedAt: number }> {
    const headers = new Headers(
      (typeof this.#headers === 'function' ? await this.#headers() : this.#headers) as ConstructorParameters<
        typeof Headers
      >[0],
    );
    for (const [name, value] of Object.entries(init.headers)) headers.set(name, value);
    const secret = flowId === undefined ? undefined : this.handles.secretOf(flowId);
    if (secret !== undefined) headers.set('verikit-flow-secret', secret);
    const sentAt = this.timers.now();
    let response: Response;
    try {
      // Views change with time, and a USSD view holds the OTP: never from or into an HTTP cache.
      const request: RequestInit & { cache?: string; credentials?: FlowClientCredentials } = {
        ...init,
        headers,
        cache: 'no-store',
      };
      if (this.#credentials !== undefined) request.credentials = this.#credentials;
      response = await this.#fetch(`${this.baseUrl}${path}`, request as RequestInit);
    } catch (error) {
      throw abortReason(init.signal ?? undefined, error);
    }
    const receivedAt = this.timers.now();
    this.clock.observeResponse(response, sentAt, receivedAt);
    return { response, sentAt, receivedAt };
  }

  /**
   * Sends a JSON request whose answer is a view of `expectedId` (when known: the flow the path is about, whose secret
   * goes with it); throws the rebuilt error otherwise.
   */
  async view(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    signal: AbortSignal | undefined,
    expectedId?: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<FlowView> {
    let payload: string | undefined;
    if (body !== undefined) {
      try {
        payload = JSON.stringify(body);
      } catch {
        throw invalidArgument(method === 'POST' && path === '/flows' ? 'input' : 'event', 'cannot be sent as JSON');
      }
    }
    const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
    if (payload !== undefined) headers['content-type'] = 'application/json';
    const { response, sentAt, receivedAt } = await this.#send(
      path,
      { method, headers, body: payload ?? null, signal: signal ?? null },
      expectedId,
    );
    if (!response.ok) throw await errorFromResponse(response, receivedAt);
    const value = await readBoundedJson(response);
    if (signal?.aborted === true) throw signal.reason;
    // A start answers with the view and the flow secret: the secret is kept in the handles, never in the view.
    let flowSecret: unknown;
    let answer = value;
    if (typeof value === 'object' && value !== null && 'flowSecret' in value) {
      ({ flowSecret, ...answer } = value as Record<string, unknown>);
    }
    const view = parseView(answer, expectedId);
    if (view === undefined) throw badResponse(response.status, 'a flow view');
    if (typeof flowSecret === 'string') this.handles.remember(view.id, flowSecret);
    this.clock.observeServerTime(view.serverTime, sentAt, receivedAt);
    return view;
  }

  /** Asks for the proof of a verified flow (`POST /flows/:id/proof`); throws the rebuilt error otherwise. */
  async proof(flowId: string, signal: AbortSignal | undefined): Promise<FlowProof> {
    const { response, receivedAt } = await this.#send(
      `/flows/${flowId}/proof`,
      { method: 'POST', headers: { accept: 'application/json' }, signal: signal ?? null },
      flowId,
    );
    if (!response.ok) throw await errorFromResponse(response, receivedAt);
    const value = (await readBoundedJson(response)) as Partial<FlowProof> | undefined;
    if (typeof value?.token !== 'string' || typeof value.expiresAt !== 'number')
      throw badResponse(response.status, 'a proof');
    return Object.freeze({ token: value.token, expiresAt: value.expiresAt });
  }

  /** Opens the flow's event stream, resuming after `lastEventId` when given. The caller reads or cancels the body. */
  async stream(flowId: string, lastEventId: number | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
    const { response } = await this.#send(`/flows/${flowId}/stream`, { method: 'GET', headers, signal }, flowId);
    return response;
  }
}
