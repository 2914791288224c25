import type { Agent } from 'undici';

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
export type Transport = (url: string, request: TransportRequest) => Promise<Response>;

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
export function loadUndici(): Promise<void> | undefined {
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
export function answerText(response: Response): Promise<string> {
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
export function undiciTransport(withBody: boolean): Transport {
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
export function fetchTransport(fetchImplementation: typeof globalThis.fetch): Transport {
  return (url, { method = 'POST', headers, body, signal }) =>
    fetchImplementation(url, { method, headers, body, signal, redirect: 'manual' });
}
