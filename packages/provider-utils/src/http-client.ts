import type { Logger, ProviderCallContextV1 } from '@verikit/provider';
import ky, { type AfterResponseHook, type BeforeRequestHook, type KyInstance, type Options } from 'ky';
import type { Agent } from 'undici';
import { isConnectionRefused, networkError } from './network-error.js';

/** What a hook is told about the request it sees. */
export interface HttpRequestInfo<Operation extends string = string> {
  /** The provider operation, e.g. `phone.send`. */
  readonly operation: Operation;
  /** 0 for the first attempt, 1 for the retry after a refused connection. */
  readonly attempt: number;
  /** The engine's id for this effect: handy as a trace or correlation id. */
  readonly idempotencyKey: string;
}

/**
 * Runs before each attempt. The request carries the URL, the method and the headers, but never the
 * credentials (added afterwards, on a copy) and not the body. A hook may add headers, e.g. `traceparent`.
 */
export type HttpBeforeRequestHook<Operation extends string = string> = (
  request: Request,
  info: HttpRequestInfo<Operation>,
) => void | Promise<void>;

/** Runs after each response, with a copy the hook may read. Each such hook costs a copy of the response. */
export type HttpAfterResponseHook<Operation extends string = string> = (
  request: Request,
  response: Response,
  info: HttpRequestInfo<Operation>,
) => void | Promise<void>;

/** Hooks for tracing and logging, run by ky. */
export interface HttpHooks<Operation extends string = string> {
  /** Run in order before each attempt, e.g. to add a `traceparent` header. */
  readonly beforeRequest?: readonly HttpBeforeRequestHook<Operation>[];
  /** Run in order after each response, e.g. to log the status or record a span. */
  readonly afterResponse?: readonly HttpAfterResponseHook<Operation>[];
}

/** How one provider's client behaves. */
export interface HttpClientSettings<Operation extends string = string> {
  /** The provider's name: the start of every message and log line (`verikit.<name>.request`). */
  readonly name: string;
  /** Milliseconds each attempt may take. */
  readonly timeout: number;
  /** Retries of a refused connection, the only failure that provably did not leave. 0 to 5. */
  readonly connectionRetries: number;
  /** The wait before retrying a refused connection, in ms. */
  readonly connectionRetryDelayMs: number;
  /**
   * A fetch to send through (a proxy agent, a test recorder). Default: undici's `Agent.request()`, faster than
   * the global `fetch` on Node with the same errors (docs/decisions/0510-undici-transport-under-ky.md).
   */
  readonly fetch?: typeof globalThis.fetch;
  /** Tracing and logging hooks; they never see the credentials. */
  readonly hooks?: HttpHooks<Operation>;
  /** The content type of every body. Default `application/json`. */
  readonly contentType?: string;
}

/** One request: everything but the credentials, which `authorize` adds at the last moment. */
export interface HttpRequest<Operation extends string = string> {
  /** The provider operation, e.g. `phone.send`: for logs and errors. */
  readonly operation: Operation;
  /** The full URL, without credentials. */
  readonly url: string;
  /** The path to log (no query, no host). */
  readonly path: string;
  /** The encoded body, without credentials. */
  readonly body?: string;
  /**
   * Default `POST`; a `PUT` sends `bytes` (an upload to a signed address, which carries its own credentials); a `GET`
   * sends no body (its parameters go in `query`).
   */
  readonly method?: 'GET' | 'POST' | 'PUT';
  /**
   * Query parameters, added to `url` at the last moment like the credentials: the Request that hooks see and errors
   * are made from has none, so a lookup that puts an identity number in its query (Dojah's) never shows it there.
   */
  readonly query?: Readonly<Record<string, string>>;
  /** A binary body, sent as it is instead of `body` (`authorize` is not called for it). */
  readonly bytes?: Uint8Array;
  /** The content type of this request's body, when it is not the client's (`application/zip`). */
  readonly contentType?: string;
  /**
   * Adds the credentials to `headers` (a plain copy made for this attempt, which no hook or logger sees)
   * and returns the body to send: `body` itself, or a copy with the key inside for APIs that want it there.
   */
  readonly authorize?: (headers: Record<string, string>, body: string | undefined) => string | undefined;
}

/** An answer that was read: status and text. Mapping it is the provider's job. */
export interface HttpAnswer {
  /** The HTTP status. */
  readonly status: number;
  /** The body as text, whatever the status: the provider reads its error envelope from it too. */
  readonly text: string;
  /** How long the request took, in ms: for logs and metrics. */
  readonly durationMs: number;
}

/** Posts requests through one ky instance; throws only `ProviderUnavailableError`s and the user's own hook errors. */
export interface HttpClient<Operation extends string = string> {
  /** POSTs the request and reads the answer, whatever its status. */
  send(request: HttpRequest<Operation>, context: ProviderCallContextV1): Promise<HttpAnswer>;
}

interface CallState extends Record<string, unknown> {
  readonly request: HttpRequest;
  readonly idempotencyKey: string;
  readonly logger: Logger;
  attempts: number;
}

/** `url` with `query` appended (URL-encoded), or `url` itself when there is none. */
function withQuery(url: string, query: Readonly<Record<string, string>> | undefined): string {
  if (query === undefined) return url;
  const search = new URLSearchParams(query).toString();
  return search === '' ? url : `${url}${url.includes('?') ? '&' : '?'}${search}`;
}

/**
 * The call travels beside the Request ky builds, in an option ky does not know (so it hands it to the
 * fetch wrapper), not inside it: a Request with a body holds it as a stream that ky tees for retries; a
 * body-less Request clones for free. The wrapper also logs each attempt, so no hook of ours runs. See
 * docs/decisions/0101-lean-ky.md.
 */
const callOption = 'verikitCall';
type CallOptions = Options & { [callOption]: CallState; context: CallState };

/**
 * Creates the one ky instance of a provider: a per-attempt timeout, no HTTP error thrown by ky (status
 * mapping is the provider's), redirects not followed, and a retry only of a refused connection. Anything
 * else that fails after the request may have left is never repeated: sends are not idempotent.
 */
export function createHttpClient<Operation extends string>(
  settings: HttpClientSettings<Operation>,
): HttpClient<Operation> {
  // A user's afterResponse hook may read the answer's body: only then does the default transport put it in the Response.
  const transport =
    settings.fetch === undefined
      ? undiciTransport((settings.hooks?.afterResponse?.length ?? 0) > 0)
      : fetchTransport(settings.fetch);
  const requestLine = `verikit.${settings.name}.request`;
  const failedLine = `verikit.${settings.name}.failed`;

  const send = (request: Request, init?: RequestInit): Promise<Response> => {
    const call = (init as Record<string, unknown>)[callOption] as CallState;
    call.logger.debug(requestLine, {
      operation: call.request.operation,
      path: call.request.path,
      attempt: call.attempts,
      idempotencyKey: call.idempotencyKey,
    });
    call.attempts += 1;
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) headers[name] = value;
    if (call.request.contentType !== undefined) headers['content-type'] = call.request.contentType;
    const body =
      call.request.bytes ??
      (call.request.authorize === undefined ? call.request.body : call.request.authorize(headers, call.request.body));
    return transport(withQuery(request.url, call.request.query), {
      method: call.request.method ?? 'POST',
      headers,
      body: body ?? null,
      signal: request.signal,
    });
  };

  const infoOf = (context: Record<string, unknown>, retryCount: number): HttpRequestInfo<Operation> => {
    const state = context as CallState;
    return {
      operation: state.request.operation as Operation,
      attempt: retryCount,
      idempotencyKey: state.idempotencyKey,
    };
  };

  // Errors thrown by the user's hooks are the user's own: they are passed on, not converted.
  const hookErrors = new WeakSet<object>();
  const guarded = async (run: () => void | Promise<void>): Promise<void> => {
    try {
      await run();
    } catch (error) {
      const thrown = typeof error === 'object' && error !== null ? error : new Error(String(error));
      hookErrors.add(thrown);
      throw thrown;
    }
  };
  const beforeRequest = (settings.hooks?.beforeRequest ?? []).map(
    (hook): BeforeRequestHook =>
      (request, normalized, state) =>
        guarded(() => hook(request, infoOf(normalized.context, state.retryCount))),
  );
  const afterResponse = (settings.hooks?.afterResponse ?? []).map(
    (hook): AfterResponseHook =>
      (request, normalized, response, state) =>
        guarded(() => hook(request, response, infoOf(normalized.context, state.retryCount))),
  );

  const api: KyInstance = ky.create({
    method: 'post',
    headers: { 'content-type': settings.contentType ?? 'application/json', accept: 'application/json' },
    timeout: settings.timeout,
    throwHttpErrors: false,
    retry: {
      limit: settings.connectionRetries,
      methods: ['get', 'post', 'put'],
      statusCodes: [],
      afterStatusCodes: [],
      shouldRetry: ({ error }) => isConnectionRefused(error),
      delay: () => settings.connectionRetryDelayMs,
    },
    fetch: send as typeof globalThis.fetch,
    hooks: { beforeRequest, afterResponse },
  });

  return {
    async send(request, context) {
      const startedAt = performance.now();
      const loading = settings.fetch === undefined ? loadUndici() : undefined;
      if (loading !== undefined) await loading;
      const call: CallState = { request, idempotencyKey: context.idempotencyKey, logger: context.logger, attempts: 0 };
      const callOptions: CallOptions = {
        method: request.method === undefined ? 'post' : (request.method.toLowerCase() as 'get' | 'post' | 'put'),
        signal: context.signal,
        context: call,
        [callOption]: call,
      };
      try {
        const response = await api(request.url, callOptions);
        const text = await answerText(response);
        return { status: response.status, text, durationMs: Math.round((performance.now() - startedAt) * 10) / 10 };
      } catch (error) {
        if (typeof error === 'object' && error !== null && hookErrors.has(error)) throw error;
        const converted = networkError(
          `${settings.name} ${request.operation}`,
          error,
          context.signal,
          settings.timeout,
        );
        context.logger.warn(failedLine, {
          operation: request.operation,
          error: converted.code,
          reason: converted.cause instanceof Error ? converted.cause.message : undefined,
        });
        throw converted;
      }
    },
  };
}

/** What the HTTP client asks of a transport for one attempt: a POST of a text body, a PUT of bytes, or a GET. */
interface TransportRequest {
  /** Default `POST`. */
  readonly method?: 'GET' | 'POST' | 'PUT';
  /** The headers, credentials included (a copy made for this attempt). */
  readonly headers: Record<string, string>;
  /** The body to send, or null. */
  readonly body: string | Uint8Array | null;
  /** Aborts the attempt: the caller's signal joined with ky's per-attempt timeout. */
  readonly signal: AbortSignal;
}

/** One attempt: POSTs to `url` and resolves with the answer (redirects are never followed). */
type Transport = (url: string, request: TransportRequest) => Promise<Response>;

/** Statuses whose Response cannot carry a body. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/** The one Agent of this process's default transports: keep-alive connections pooled per origin. */
let agent: Agent | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads undici (about 100 ms on a loaded machine, so not at import time: most programs that import a provider
 * never call it at start-up) and makes the Agent. Returns undefined once loaded; the HTTP client awaits it
 * before ky starts its per-attempt timeout, so the first call's loading never counts as the provider's slowness.
 */
function loadUndici(): Promise<void> | undefined {
  if (agent !== undefined) return undefined;
  loading ??= import('undici').then(({ Agent }) => {
    agent = new Agent();
  });
  return loading;
}

/** The text of an answer the default transport read, for a `Response` it made without a body (see {@link undiciTransport}). */
const answerTexts = new WeakMap<Response, string>();

/**
 * The body of `response` as text: the text the default transport read beside it, else the response's own body.
 * Reads the body once either way.
 */
function answerText(response: Response): Promise<string> {
  const text = answerTexts.get(response);
  return text === undefined ? response.text() : Promise.resolve(text);
}

/**
 * The default transport on Node: undici's `Agent.request()` (the npm package, loaded on the first call), which
 * skips what Node's global `fetch` builds around the same undici core (a `Request`, web streams for the body,
 * fetch's own abort plumbing). The body is read whole before the answer resolves, so ky's per-attempt timeout
 * covers it too. Errors are undici's own, carrying the same system codes (`ECONNREFUSED`, `ENOTFOUND`,
 * `UND_ERR_SOCKET`…) that `fetch` puts in its error's `cause`: `networkError` reads either. See
 * docs/decisions/0510-undici-transport-under-ky.md.
 *
 * The answer handed to ky is a `Response` with the status and headers; its body is that text when `withBody` (a hook
 * of the user's may read it), else none, the text kept beside it for {@link answerText}: a body made into a web
 * stream only to be read back costs more than the rest of the answer (decision 1460).
 */
function undiciTransport(withBody: boolean): Transport {
  return async (url, request) => {
    const { status, headers, text } = await undiciAnswer(url, request);
    const response = new Response(withBody && !nullBodyStatuses.has(status) ? text : null, { status, headers });
    if (!withBody) answerTexts.set(response, text);
    return response;
  };
}

/** One POST through the shared Agent: the status, the headers as pairs, and the whole body as text. */
async function undiciAnswer(
  url: string,
  { method = 'POST', headers, body, signal }: TransportRequest,
): Promise<{ status: number; headers: [string, string][]; text: string }> {
  await loadUndici();
  const target = new URL(url);
  const answer = await agent!.request({
    origin: target.origin,
    path: target.pathname + target.search,
    method,
    headers,
    body,
    signal,
  });
  const text = await answer.body.text();
  const responseHeaders: [string, string][] = [];
  for (const [name, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const each of value) responseHeaders.push([name, each]);
    else if (value !== undefined) responseHeaders.push([name, value]);
  }
  return { status: answer.statusCode, headers: responseHeaders, text };
}

/** A transport over a `fetch` the user gave (a proxy agent, a test recorder): the request as `fetch` wants it. */
function fetchTransport(fetchImplementation: typeof globalThis.fetch): Transport {
  return (url, { method = 'POST', headers, body, signal }) =>
    fetchImplementation(url, { method, headers, body, signal, redirect: 'manual' });
}
