/**
 * A structured logger. verikit never passes secrets, OTPs, codes or full identity numbers to it.
 * `console` fits; for pino use `pinoLogger`, which puts the fields first as pino expects.
 */
export interface Logger {
  /** Detail for following one flow step by step; off in most deployments. */
  debug(message: string, fields?: Record<string, unknown>): void;
  /** A normal event worth keeping, such as a flow verified. */
  info(message: string, fields?: Record<string, unknown>): void;
  /** Something went wrong but was handled, such as a provider call retried. */
  warn(message: string, fields?: Record<string, unknown>): void;
  /** Something failed that an operator should look at. */
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => {};

/** A logger that drops everything. Pass it to turn even the default warnings off. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

/**
 * The default wherever a `logger` option is left out: warnings and errors go to the console
 * (`console.warn`, `console.error`) with their fields, debug and info lines are dropped. A
 * misconfiguration (a webhook secret that matches no signature, webhooks with no route) is a
 * warning, so a developer sees it without passing a logger.
 */
export const defaultLogger: Logger = Object.freeze({
  debug: noop,
  info: noop,
  warn: (message: string, fields?: Record<string, unknown>) => console.warn(message, fields ?? {}),
  error: (message: string, fields?: Record<string, unknown>) => console.error(message, fields ?? {}),
});
