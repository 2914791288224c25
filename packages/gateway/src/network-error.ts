/** What went wrong below HTTP, as far as it can be told without quoting anything. */
export type NetworkFailure = 'connection-refused' | 'timeout' | 'aborted' | 'network';

const codePattern = /^[A-Z][A-Z0-9_]{1,40}$/;

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
