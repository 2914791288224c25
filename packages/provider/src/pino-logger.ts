import type { Logger } from './logger.js';

/** One level of a pino logger as verikit calls it: the fields first, then the message (pino's order). */
type PinoLevel = (fields: Record<string, unknown>, message: string) => void;

/** What {@link pinoLogger} needs of a pino logger (or a child): its four levels. */
export interface PinoLike {
  /** pino's `debug`. */
  debug: PinoLevel;
  /** pino's `info`. */
  info: PinoLevel;
  /** pino's `warn`. */
  warn: PinoLevel;
  /** pino's `error`. */
  error: PinoLevel;
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
