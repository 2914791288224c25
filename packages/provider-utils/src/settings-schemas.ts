import { z } from 'zod';

/**
 * An http(s) base address without credentials, query or fragment; the trailing slash is dropped. Used
 * for every provider's base URL option and environment variable.
 */
export const baseUrlSchema = z
  .string({ error: 'must be an http(s) URL' })
  .max(2048, { error: 'must be at most 2048 characters', abort: true })
  .refine(
    (value) => {
      if (!URL.canParse(value)) return false;
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') &&
        url.username === '' &&
        url.password === '' &&
        url.search === '' &&
        url.hash === ''
      );
    },
    { error: 'must be an http(s) URL without credentials, query or fragment' },
  )
  .transform((value) => value.replace(/\/+$/, ''));

/** A key, token or secret: 1 to 4096 visible ASCII characters (no spaces or line breaks, which would break a header). */
export const secretSchema = z
  .string({ error: 'must be a string' })
  .max(4096, { error: 'must be at most 4096 characters', abort: true })
  .regex(/^[\x21-\x7e]+$/, { error: 'must be 1 to 4096 visible ASCII characters' });

/** A per-request timeout: 1 ms to 10 minutes. */
export const timeoutSchema = z
  .number({ error: 'must be a number of milliseconds' })
  .int({ error: 'must be a whole number of milliseconds' })
  .min(1, { error: 'must be at least 1 ms' })
  .max(600_000, { error: 'must be at most 600000 ms' });

/** A provider name as `provider.name` shows it. */
export const providerNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, { error: 'must be 1 to 32 lowercase letters, digits or dashes' });

/** A function option (fetch, hooks). */
export const functionSchema = <T>() =>
  z.custom<T>((value) => typeof value === 'function', { error: 'must be a function' });

/** The hooks option every HTTP provider takes. */
export const hooksSchema = z
  .strictObject({
    /** Up to 20 functions run before each attempt. */
    beforeRequest: z.array(functionSchema<(...args: never[]) => unknown>()).max(20).optional(),
    /** Up to 20 functions run after each response. */
    afterResponse: z.array(functionSchema<(...args: never[]) => unknown>()).max(20).optional(),
  })
  .optional();

/** The transport options every HTTP provider takes, with their schemas. */
export const transportSettingsShape = {
  /** Milliseconds each attempt may take: 1 to 600,000. */
  timeout: timeoutSchema.optional(),
  /** A fetch to use instead of the global one. */
  fetch: functionSchema<typeof globalThis.fetch>().optional(),
  /** Tracing and logging hooks. */
  hooks: hooksSchema,
  /** Retries of a refused connection: 0 to 5. */
  connectionRetries: z.number().int().min(0).max(5).optional(),
  /** The wait before such a retry, in ms: 0 to 10,000. */
  connectionRetryDelayMs: z.number().int().min(0).max(10_000).optional(),
  /** The provider's name in logs and errors. */
  name: providerNameSchema.optional(),
};

/** The transport settings with their defaults: 10 s timeout, one retry of a refused connection after 50 ms. */
export interface TransportSettings<Hooks> {
  /** Milliseconds each attempt may take. Default 10,000. */
  readonly timeout: number;
  /** Retries of a refused connection, the only failure that provably did not leave. Default 1. */
  readonly connectionRetries: number;
  /** The wait before such a retry, in ms. Default 50. */
  readonly connectionRetryDelayMs: number;
  /** The provider's name in logs and errors. Default: the provider's own (`termii`, `twilio`). */
  readonly name: string;
  /** A fetch to use instead of the global one, when given. */
  readonly fetch?: typeof globalThis.fetch;
  /** Tracing and logging hooks, when given. */
  readonly hooks?: Hooks;
}

/** Applies the transport defaults every HTTP provider shares to its parsed settings. */
export function transportDefaults<Hooks>(
  parsed: {
    timeout?: number | undefined;
    connectionRetries?: number | undefined;
    connectionRetryDelayMs?: number | undefined;
    name?: string | undefined;
    fetch?: typeof globalThis.fetch | undefined;
    hooks?: unknown;
  },
  name: string,
): TransportSettings<Hooks> {
  return {
    timeout: parsed.timeout ?? 10_000,
    connectionRetries: parsed.connectionRetries ?? 1,
    connectionRetryDelayMs: parsed.connectionRetryDelayMs ?? 50,
    name: parsed.name ?? name,
    ...(parsed.fetch === undefined ? {} : { fetch: parsed.fetch }),
    ...(parsed.hooks === undefined ? {} : { hooks: parsed.hooks as Hooks }),
  };
}
