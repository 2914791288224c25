import { parseInput, senderSchema } from '@verikit/provider';
import { z } from 'zod';
import type { GatewayProviderOptions } from './gateway-options.js';

const pathSchema = z
  .string({ error: 'must be a dotted path such as data.otp' })
  .max(200, { error: 'must be at most 200 characters', abort: true })
  .regex(/^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*$/, { error: 'must be a dotted path such as data.otp' });

const baseUrlSchema = z
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

const valuesSchema = z.array(z.string().min(1).max(64), { error: 'must be a list of strings' }).min(1).max(20);

const functionSchema = <T>() => z.custom<T>((value) => typeof value === 'function', { error: 'must be a function' });

/** The schema of {@link GatewayProviderOptions}: unknown keys are refused, so typos surface. */
export const gatewayProviderOptionsSchema = z.strictObject(
  {
    apiKey: z
      .string({ error: 'must be a string' })
      .max(4096, { error: 'must be at most 4096 characters', abort: true })
      .regex(/^[\x21-\x7e]+$/, { error: 'must be 1 to 4096 visible ASCII characters' }),
    baseUrl: baseUrlSchema,
    ussdBaseUrl: baseUrlSchema,
    defaultSender: senderSchema.optional(),
    timeout: z.number({ error: 'must be a number of milliseconds' }).int({ error: 'must be a whole number of milliseconds' }).min(1).max(600_000).optional(),
    fetch: functionSchema<typeof globalThis.fetch>().optional(),
    mapping: z
      .strictObject({
        ussd: z.strictObject({ otp: pathSchema.optional(), ussdCode: pathSchema.optional(), reference: pathSchema.optional() }).optional(),
        phone: z
          .strictObject({
            requestId: pathSchema.optional(),
            valid: pathSchema.optional(),
            channelField: z.string().regex(/^[A-Za-z_$][\w$-]{0,63}$/, { error: 'must be a field name' }).optional(),
            channelValues: z.strictObject({ sms: z.string().min(1).max(64).optional(), voice: z.string().min(1).max(64).optional() }).optional(),
          })
          .optional(),
        webhook: z
          .strictObject({
            event: pathSchema.optional(),
            eventName: z.string().min(1).max(64).optional(),
            phoneNumber: pathSchema.optional(),
            status: pathSchema.optional(),
            successValues: valuesSchema.optional(),
            failureValues: valuesSchema.optional(),
          })
          .optional(),
      })
      .optional(),
    hooks: z
      .strictObject({
        beforeRequest: z.array(functionSchema<(...args: never[]) => unknown>()).max(20).optional(),
        afterResponse: z.array(functionSchema<(...args: never[]) => unknown>()).max(20).optional(),
      })
      .optional(),
    connectionRetries: z.number().int().min(0).max(5).optional(),
    connectionRetryDelayMs: z.number().int().min(0).max(10_000).optional(),
    ninPattern: z.instanceof(RegExp, { error: 'must be a RegExp' }).optional(),
    name: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, { error: 'must be 1 to 32 lowercase letters, digits or dashes' }).optional(),
  },
  { error: 'must be an options object' },
);

/** Resolved options: defaults applied, base URLs without trailing slash. */
export interface ResolvedGatewayOptions extends Omit<GatewayProviderOptions, 'timeout' | 'connectionRetries' | 'connectionRetryDelayMs' | 'name'> {
  readonly timeout: number;
  readonly connectionRetries: number;
  readonly connectionRetryDelayMs: number;
  readonly name: string;
}

/** Validates options, or throws an `InvalidInputError` naming the field (values are never echoed). */
export function resolveGatewayOptions(options: unknown): ResolvedGatewayOptions {
  const parsed = parseInput(gatewayProviderOptionsSchema, options);
  return {
    ...(parsed as GatewayProviderOptions),
    baseUrl: parsed.baseUrl,
    ussdBaseUrl: parsed.ussdBaseUrl,
    timeout: parsed.timeout ?? 10_000,
    connectionRetries: parsed.connectionRetries ?? 1,
    connectionRetryDelayMs: parsed.connectionRetryDelayMs ?? 50,
    name: parsed.name ?? 'gateway',
  };
}
