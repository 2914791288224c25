import { InvalidInputError } from '@verikit/provider';

/**
 * One line saying why the server could not start, for the terminal: the port and host when they are taken or
 * not allowed, the variable when a setting is malformed (never its value). Never a stack trace: these are
 * things a person fixes, not bugs.
 */
export function startFailureMessage(error: unknown): string {
  if (InvalidInputError.isInstance(error)) return error.message;
  const { code, port, address } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    port?: unknown;
    address?: unknown;
  };
  const where = `port ${String(port)} on ${String(address)}`;
  if (code === 'EADDRINUSE')
    return `${where} is already in use: stop what uses it, or set PORT to another (PORT=0 picks a free one)`;
  if (code === 'EACCES') return `not allowed to listen on ${where} (ports below 1024 need privileges): set PORT`;
  if (code === 'EADDRNOTAVAIL') return `${String(address)} is not an address of this machine: set HOST`;
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return `could not start: ${message}`;
}
