const codePattern = /^[A-Z][A-Z0-9_]{1,40}$/;
const namePattern = /^[A-Za-z_$][A-Za-z0-9_$]{0,60}$/;

/** The first system error code (`ECONNREFUSED`, `ETIMEDOUT`…) in an error's cause chain. */
function driverCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && codePattern.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A cause safe to attach to a `StoreError`: a fresh error naming only the driver error's class and
 * system code. The driver's message, stack and causes are dropped: they can hold a connection URL
 * with its password, a host, or stored data.
 */
export function safeStoreCause(error: unknown): Error {
  const constructorName = error instanceof Error ? error.constructor.name : undefined;
  const kind = constructorName !== undefined && namePattern.test(constructorName) ? constructorName : 'Error';
  const code = driverCodeOf(error);
  const cause = new Error(code === undefined ? kind : `${kind} (${code})`);
  cause.name = 'StoreDriverError';
  return cause;
}
