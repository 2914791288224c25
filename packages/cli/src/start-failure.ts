/**
 * One line saying why the sandbox's server could not start, for the terminal: the port for the
 * errors a person can act on (taken, or not allowed), the system code otherwise. Never a stack trace.
 */
export function startFailureMessage(error: unknown, port: number | undefined): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  // The port the system names: the gateway fake's second listener (USSD) is on --port + 1.
  const failed =
    typeof error === 'object' && error !== null && 'port' in error && typeof error.port === 'number' && error.port > 0
      ? error.port
      : port;
  const which = failed === undefined ? 'the port' : `port ${failed}`;
  if (code === 'EADDRINUSE')
    return `${which} on 127.0.0.1 is already in use: stop what uses it, or pick another with --port (0 picks a free one)`;
  if (code === 'EACCES')
    return `not allowed to listen on ${which} (ports below 1024 need privileges): pick another with --port`;
  return `could not start: ${code ?? 'unknown error'}`;
}
