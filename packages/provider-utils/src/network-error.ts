import { ProviderUnavailableError } from '@verikit/provider';

/** What went wrong below HTTP, as far as it can be told without quoting anything. */
export type NetworkFailure = 'connection-refused' | 'dns' | 'timeout' | 'aborted' | 'network';

const codePattern = /^[A-Z][A-Z0-9_]{1,40}$/;

/** System codes that prove the request never reached the provider: no connection was ever made. */
const neverConnected = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA', 'EAI_FAIL']);

/** The first system error code (`ECONNREFUSED`, `UND_ERR_SOCKET`…) in an error's cause chain. */
export function networkCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && codePattern.test(code)) return code;
    const nested = (current as { errors?: unknown }).errors;
    if (Array.isArray(nested) && nested.length > 0) {
      const codes = nested.map(networkCodeOf);
      if (codes.every((each) => each === codes[0])) return codes[0];
      return codes.find((each) => each !== undefined);
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the connection was refused: the request provably never reached the service. */
export function isConnectionRefused(error: unknown): boolean {
  return networkCodeOf(error) === 'ECONNREFUSED';
}

/**
 * A cause safe to attach to a verikit error: a fresh error carrying only the failure kind and the
 * system code, never the original message, request or response (which could hold a secret).
 */
export function safeCause(failure: NetworkFailure, code: string | undefined): Error {
  const cause = new Error(code === undefined ? failure : `${failure} (${code})`);
  cause.name = 'NetworkError';
  return cause;
}

/**
 * Converts a failure below HTTP into a `ProviderUnavailableError`. `requestSent` is `false` only for a
 * refused connection or a failed DNS lookup (no connection was made, so nothing can have been sent);
 * for a timeout, an abort or a dropped connection it is left unknown, and the error is `maybeSent`: the
 * request may have left and been acted on (docs/decisions/0920-maybe-sent.md).
 */
export function networkError(
  label: string,
  error: unknown,
  signal: AbortSignal,
  timeoutMs: number,
): ProviderUnavailableError {
  const code = networkCodeOf(error);
  if (signal.aborted) {
    return new ProviderUnavailableError(`${label}: the call was aborted before the service answered`, {
      cause: safeCause('aborted', code),
      maybeSent: true,
    });
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new ProviderUnavailableError(`${label}: the service did not answer within ${timeoutMs} ms`, {
      cause: safeCause('timeout', code),
      maybeSent: true,
    });
  }
  if (code === 'ECONNREFUSED') {
    return new ProviderUnavailableError(`${label}: the connection was refused`, {
      cause: safeCause('connection-refused', code),
      requestSent: false,
      maybeSent: false,
    });
  }
  if (code !== undefined && neverConnected.has(code)) {
    return new ProviderUnavailableError(`${label}: the service's host name could not be resolved`, {
      cause: safeCause('dns', code),
      requestSent: false,
      maybeSent: false,
    });
  }
  return new ProviderUnavailableError(`${label}: the service could not be reached`, {
    cause: safeCause('network', code),
    maybeSent: true,
  });
}
