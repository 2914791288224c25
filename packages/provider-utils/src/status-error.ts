import {
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type VerikitError,
} from '@verikit/provider';

/**
 * Answers that say the call failed, so nothing was sent: the request timed out at the provider before it was
 * read (408), was refused for its rate (429), failed inside the provider (500), is not implemented (501) or
 * the service is down (503). A 502, a 504 or a CDN's 52x come from a gateway in front of the provider, which
 * may have run the request: maybe sent (docs/decisions/0920-maybe-sent.md).
 */
const failedAnswers: ReadonlySet<number> = new Set([408, 429, 500, 501, 503]);

/**
 * The typed error for a non-2xx answer, the same for every HTTP provider: 401/403 authentication,
 * 408/429/5xx retryable unavailable (the provider answered, so `requestSent` is true; `maybeSent` is false
 * for the answers that say the call failed, true for a gateway's 502/504), other 4xx rejected, anything else
 * (a redirect, which is never followed) a protocol error on `status`. `providerMessage` must already be made
 * safe (see `redactMessage`).
 */
export function statusError(label: string, status: number, providerMessage: string | undefined): VerikitError {
  const quoted = providerMessage === undefined ? '' : `: ${providerMessage}`;
  if (status === 401 || status === 403)
    return new ProviderAuthenticationError(`${label}: the service refused the credentials (HTTP ${status})`);
  if (status === 408 || status === 429 || status >= 500) {
    return new ProviderUnavailableError(`${label}: the service is unavailable (HTTP ${status})${quoted}`, {
      requestSent: true,
      maybeSent: !failedAnswers.has(status),
    });
  }
  if (status >= 400) {
    return new ProviderRejectedError(`${label}: the service refused the request (HTTP ${status})${quoted}`, {
      ...(providerMessage === undefined ? {} : { providerMessage }),
    });
  }
  return new ProviderProtocolError(`${label}: unexpected HTTP ${status} (redirects are not followed)`, {
    field: 'status',
  });
}

/** Parses a body as JSON, or throws a `ProviderProtocolError` on `body` that never quotes the text (it may carry a code). */
export function parseJsonBody(label: string, status: number, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderProtocolError(`${label}: the response (HTTP ${status}) is not JSON`, { field: 'body' });
  }
}
