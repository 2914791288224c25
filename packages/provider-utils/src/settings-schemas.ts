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
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
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
export const providerNameSchema = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, { error: 'must be 1 to 32 lowercase letters, digits or dashes' });

/** A function option (fetch, hooks). */
export const functionSchema = <T>() => z.custom<T>((value) => typeof value === 'function', { error: 'must be a function' });

/** The hooks option every HTTP provider takes. */
export const hooksSchema = z
  .strictObject({
    beforeRequest: z.array(functionSchema<(...args: never[]) => unknown>()).max(20).optional(),
    afterResponse: z.array(functionSchema<(...args: never[]) => unknown>()).max(20).optional(),
  })
  .optional();

/** The transport options every HTTP provider takes, with their schemas. */
export const transportSettingsShape = {
  timeout: timeoutSchema.optional(),
  fetch: functionSchema<typeof globalThis.fetch>().optional(),
  hooks: hooksSchema,
  connectionRetries: z.number().int().min(0).max(5).optional(),
  connectionRetryDelayMs: z.number().int().min(0).max(10_000).optional(),
  name: providerNameSchema.optional(),
};

/** The transport settings with their defaults: 10 s timeout, one retry of a refused connection after 50 ms. */
export interface TransportSettings<Hooks> {
  readonly timeout: number;
  readonly connectionRetries: number;
  readonly connectionRetryDelayMs: number;
  readonly name: string;
  readonly fetch?: typeof globalThis.fetch;
  readonly hooks?: Hooks;
}

/** Applies the transport defaults every HTTP provider shares to its parsed settings. */
export function transportDefaults<Hooks>(
  parsed: { timeout?: number | undefined; connectionRetries?: number | undefined; connectionRetryDelayMs?: number | undefined; name?: string | undefined; fetch?: typeof globalThis.fetch | undefined; hooks?: unknown },
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
