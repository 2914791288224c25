/**
 * A structured logger. verikit never passes secrets, OTPs, codes or full identity numbers to it.
 * `console` fits; so do pino and winston child loggers.
 */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

/** A logger that drops everything: the default. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });
