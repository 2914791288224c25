import type { Agent } from 'undici';

/** What the HTTP client asks of a transport for one attempt: a POST of a text body. */
interface TransportRequest {
  /** The headers, credentials included (a copy made for this attempt). */
  readonly headers: Record<string, string>;
  /** The body to send, or null. */
  readonly body: string | null;
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

/**
 * The default transport on Node: undici's `Agent.request()` (the npm package, loaded on the first call), which
 * skips what Node's global `fetch` builds around the same undici core (a `Request`, web streams for the body,
 * fetch's own abort plumbing). The body is read whole before the answer resolves, so ky's per-attempt timeout
 * covers it too, and the answer handed to ky is a `Response` made from that text. Errors are undici's own,
 * carrying the same system codes (`ECONNREFUSED`, `ENOTFOUND`, `UND_ERR_SOCKET`…) that `fetch` puts in its
 * error's `cause`: `networkError` reads either. See docs/decisions/0510-undici-transport-under-ky.md.
 */
export const undiciTransport: Transport = async (url, { headers, body, signal }) => {
  await loadUndici();
  const target = new URL(url);
  const answer = await agent!.request({
    origin: target.origin,
    path: target.pathname + target.search,
    method: 'POST',
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
  return new Response(nullBodyStatuses.has(answer.statusCode) ? null : text, {
    status: answer.statusCode,
    headers: responseHeaders,
  });
};

/** A transport over a `fetch` the user gave (a proxy agent, a test recorder): the request as `fetch` wants it. */
export function fetchTransport(fetchImplementation: typeof globalThis.fetch): Transport {
  return (url, { headers, body, signal }) =>
    fetchImplementation(url, { method: 'POST', headers, body, signal, redirect: 'manual' });
}
