import { FlowClientError, invalidArgument } from './errors/flow-client-error.js';
import type { FlowEvent, FlowView, StartFlowInput } from './flow-view.js';
import { FlowObserver, type FlowObserverOptions } from './flow-observer.js';
import { FlowHandles, inputKey, newIdempotencyKey, platformStorage, type FlowHandleStorage } from './flow-handles.js';
import { platformTimers, type FlowClientTimers } from './timers.js';
import {
  checkFlowId,
  FlowTransport,
  type FlowClientCredentials,
  type FlowClientHeaders,
  type FlowProof,
} from './transport.js';

/** Options of {@link createFlowClient}. */
export interface FlowClientOptions {
  /**
   * Where the server's flow routes live: the flow handler's `basePath`, absolute
   * (`https://api.example.com/api/verify`) or, in a browser, a path on the page's origin (`/api/verify`).
   */
  baseUrl: string;
  /** The fetch to use. Default: the platform's `fetch`, looked up at each call. */
  fetch?: typeof fetch;
  /** Headers sent with every request (an `Authorization` header), or a function giving them per request. */
  headers?: FlowClientHeaders;
  /** Whether cookies go with cross-origin requests (`include`). Default: the platform's (`same-origin`). */
  credentials?: FlowClientCredentials;
  /** The clock and timers to run on. Default: the platform's. */
  timers?: FlowClientTimers;
  /**
   * Where the handles of started flows (id + flow secret) are kept, so a reload resumes a flow
   * instead of sending a new code. Default: `sessionStorage` where there is one (this tab only),
   * else memory. `false`: memory only.
   */
  storage?: FlowHandleStorage | false;
  /**
   * Where the browser's owner token is kept, which lets a second tab starting the same
   * verification join the live flow. Default: `localStorage` where there is one, else memory.
   */
  ownerStorage?: FlowHandleStorage | false;
}

/** Options of one call. */
export interface FlowRequestOptions {
  /** Aborts the request; the call then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A client of one server's flow routes. */
export interface FlowClient {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * Starts a flow (`POST /flows`); resolves to its first view. A live flow this client started for
   * the same input (kept in `storage`, so across reloads) is resumed instead: no second code.
   */
  start(input: StartFlowInput, options?: FlowRequestOptions): Promise<FlowView>;
  /**
   * The live flow this client started for the same input (after a reload too), read again; undefined
   * when there is none, or it is done or gone. Starts nothing.
   */
  resume(input: StartFlowInput, options?: FlowRequestOptions): Promise<FlowView | undefined>;
  /** Sends a user event (`POST /flows/:id/events`); resolves to the view after it. Observers of the flow see that view too. */
  send(flowId: string, event: FlowEvent, options?: FlowRequestOptions): Promise<FlowView>;
  /** Reads a flow (`GET /flows/:id`). Observers of the flow see the view too. */
  get(flowId: string, options?: FlowRequestOptions): Promise<FlowView>;
  /**
   * A proof that the flow is verified (`POST /flows/:id/proof`), with the flow secret this client
   * holds, for your signup endpoint to redeem.
   */
  proof(flowId: string, options?: FlowRequestOptions): Promise<FlowProof>;
  /** An observer that follows the flow live once subscribed. */
  observe(flowId: string, options?: FlowObserverOptions): FlowObserver;
  /** The estimated offset of the server's clock from this device's (`server - local`), in ms. */
  serverClockOffsetMs(): number;
}

const schemePattern = /^https?:\/\//i;

function checkBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl.length === 0 || baseUrl.length > 2048)
    throw invalidArgument('baseUrl', 'must be a URL or a path such as /api/verify');
  const trimmed = baseUrl.replace(/\/+$/, '');
  if (schemePattern.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw invalidArgument('baseUrl', 'must be a URL or a path such as /api/verify');
    }
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
      throw invalidArgument('baseUrl', 'must have no query, fragment or credentials');
    return trimmed;
  }
  if (trimmed === '' && baseUrl.startsWith('/')) return '';
  if (!/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(trimmed) || trimmed.startsWith('//'))
    throw invalidArgument('baseUrl', 'must be a URL or a path such as /api/verify');
  return trimmed;
}

function checkPlainObject(value: unknown, field: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidArgument(field, 'must be an object');
}

function checkTimers(timers: unknown): FlowClientTimers | undefined {
  if (timers === undefined) return undefined;
  const candidate = timers as Partial<FlowClientTimers> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    !['now', 'setTimeout', 'clearTimeout'].every(
      (name) => typeof (candidate as Record<string, unknown>)[name] === 'function',
    )
  ) {
    throw invalidArgument('timers', 'must have now, setTimeout and clearTimeout');
  }
  return candidate as FlowClientTimers;
}

/**
 * Creates a client of the flow routes `createFlowHandler` serves. Framework-free and without
 * dependencies: it runs wherever `fetch` and Web streams do (browsers, Node ≥ 20, Deno, Bun,
 * workers). Errors are the server's typed errors rebuilt as {@link FlowClientError} with the same
 * `code`, `field` and `isRetryable`. See docs/ui.md.
 *
 * @example
 * const client = createFlowClient({ baseUrl: '/api/verify' });
 * const view = await client.start({ kind: 'phone', phoneNumber: '+2348012345678' });
 * const observer = client.observe(view.id, { initialView: view });
 * const unsubscribe = observer.subscribe(({ view }) => render(view));
 */
export function createFlowClient(options: FlowClientOptions): FlowClient {
  checkPlainObject(options, 'options');
  const baseUrl = checkBaseUrl(options.baseUrl);
  if (options.fetch !== undefined && typeof options.fetch !== 'function')
    throw invalidArgument('fetch', 'must be a function');
  const headers = options.headers;
  if (headers !== undefined && typeof headers !== 'function' && (typeof headers !== 'object' || headers === null))
    throw invalidArgument('headers', 'must be headers or a function returning them');
  const fetchFunction =
    options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => globalThis.fetch(input, init));
  const transport = new FlowTransport(
    baseUrl,
    fetchFunction,
    headers,
    options.credentials,
    checkTimers(options.timers) ?? platformTimers,
    new FlowHandles(
      baseUrl,
      options.storage === false ? undefined : (options.storage ?? platformStorage('sessionStorage')),
      options.ownerStorage === false ? undefined : (options.ownerStorage ?? platformStorage('localStorage')),
    ),
  );

  // The observers with subscribers (a page has a few): they see the views of `start`, `send` and `get`.
  const observers = new Set<FlowObserver>();

  /** Hands a view to the flow's observers; after a refusal that shows their view is stale, they read again. */
  function share(flowId: string, view: FlowView | undefined, error?: unknown): void {
    for (const observer of observers) {
      if (observer.flowId !== flowId) continue;
      if (view !== undefined) observer.offer(view);
      else if (
        FlowClientError.isInstance(error) &&
        (error.code === 'event_not_allowed' || error.code === 'flow_not_found')
      )
        void observer.refetch();
    }
  }

  /** The live flow this client started for `input`, read again; undefined when there is none. */
  async function resumeFlow(input: StartFlowInput, requestOptions: FlowRequestOptions): Promise<FlowView | undefined> {
    checkPlainObject(input, 'input');
    const key = await inputKey(input);
    const earlier = key === undefined ? undefined : transport.handles.startedFor(key);
    if (earlier === undefined) return undefined;
    const view = await transport
      .view('GET', `/flows/${earlier}`, undefined, requestOptions.signal, earlier)
      .catch((error: unknown) => {
        if (FlowClientError.isInstance(error) && error.code === 'flow_not_found') return undefined;
        throw error;
      });
    if (view !== undefined && !view.done) return view;
    transport.handles.forget(earlier);
    return undefined;
  }

  return {
    baseUrl,
    resume: (input, requestOptions = {}) => resumeFlow(input, requestOptions),
    async start(input, requestOptions = {}) {
      // A flow this client started for the same input and still live is resumed: no second code.
      const resumed = await resumeFlow(input, requestOptions);
      if (resumed !== undefined) return resumed;
      const key = await inputKey(input);
      const view = await transport.view('POST', '/flows', input, requestOptions.signal, undefined, {
        'idempotency-key': newIdempotencyKey(),
        'verikit-owner': transport.handles.owner(),
      });
      const secret = transport.handles.secretOf(view.id);
      if (key !== undefined && secret !== undefined) transport.handles.remember(view.id, secret, key);
      return view;
    },
    async send(flowId, event, requestOptions = {}) {
      const id = checkFlowId(flowId);
      checkPlainObject(event, 'event');
      if (typeof (event as { type?: unknown }).type !== 'string')
        throw invalidArgument('event.type', 'must be one of submit-code, resend, restart, cancel');
      try {
        const view = await transport.view('POST', `/flows/${id}/events`, event, requestOptions.signal, id);
        share(id, view);
        return view;
      } catch (error) {
        share(id, undefined, error);
        throw error;
      }
    },
    async get(flowId, requestOptions = {}) {
      const id = checkFlowId(flowId);
      const view = await transport.view('GET', `/flows/${id}`, undefined, requestOptions.signal, id);
      share(id, view);
      return view;
    },
    proof: (flowId, requestOptions = {}) => transport.proof(checkFlowId(flowId), requestOptions.signal),
    observe(flowId, observerOptions = {}) {
      return new FlowObserver(transport, observers, checkFlowId(flowId), observerOptions);
    },
    serverClockOffsetMs: () => transport.clock.offsetMs,
  };
}
