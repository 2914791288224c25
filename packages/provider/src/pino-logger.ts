import type { Logger } from './logger.js';

/** What {@link pinoLogger} needs of a pino logger (or a child): its four levels, fields first (pino's order). */
export interface PinoLike {
  /** pino's `debug`. */
  debug(fields: Record<string, unknown>, message: string): void;
  /** pino's `info`. */
  info(fields: Record<string, unknown>, message: string): void;
  /** pino's `warn`. */
  warn(fields: Record<string, unknown>, message: string): void;
  /** pino's `error`. */
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * A verikit {@link Logger} writing to pino. pino takes `(fields, message)`; given verikit's
 * `(message, fields)` as is, it would print the message and drop the fields (pino#870), so pino
 * cannot be passed as it stands. Takes no dependency on pino: any logger of this shape fits.
 *
 * @example
 * import pino from 'pino';
 * const verikit = createVerikit({ provider, secret, logger: pinoLogger(pino()) });
 */
export function pinoLogger(pino: PinoLike): Logger {
  return {
    debug: (message, fields) => pino.debug(fields ?? {}, message),
    info: (message, fields) => pino.info(fields ?? {}, message),
    warn: (message, fields) => pino.warn(fields ?? {}, message),
    error: (message, fields) => pino.error(fields ?? {}, message),
  };
}
