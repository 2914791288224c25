import { parseInput } from '@verikit/provider';
import { z } from 'zod';
import type { GatewayFakeOptions } from './gateway-fake-options.js';
import { defaultTestIdentities, type TestIdentity } from './test-identities.js';
import { defaultMaxRetryAfterMs } from './retry-after.js';

const schema = z
  .strictObject(
    {
      port: z.number().int().min(0).max(65_535).optional(),
      ussdPort: z.number().int().min(0).max(65_535).optional(),
      apiKey: z
        .string()
        .regex(/^[\x21-\x7e]{1,4096}$/, { error: 'must be 1 to 4096 visible ASCII characters' })
        .optional(),
      webhookUrl: z
        .string()
        .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
          error: 'must be an http(s) URL',
        })
        // Credentials in the URL would be printed and logged with it: the receiver authenticates by signature.
        .refine((value) => !URL.canParse(value) || (new URL(value).username === '' && new URL(value).password === ''), {
          error: 'must not contain a username or password',
        })
        .optional(),
      webhookSecret: z
        .string()
        .regex(/^whsec_[A-Za-z0-9+/]{22,}={0,2}$/, { error: 'must be whsec_ followed by base64 (at least 16 bytes)' })
        .optional(),
      latencyMs: z.number().int().min(0).max(60_000).optional(),
      slowMs: z.number().int().min(0).max(120_000).optional(),
      webhookRetryDelaysMs: z.array(z.number().int().min(0).max(3_600_000)).max(20).optional(),
      webhookMaxRetryAfterMs: z.number().int().min(0).max(3_600_000).optional(),
      webhookTimeoutMs: z.number().int().min(1).max(120_000).optional(),
      codeTtlMs: z.number().int().min(1).optional(),
      maxAttempts: z
        .number()
        .int({ error: 'must be a whole number from 1 to 100' })
        .min(1, { error: 'must be a whole number from 1 to 100' })
        .max(100, { error: 'must be a whole number from 1 to 100' })
        .optional(),
      identities: z
        .array(
          z.strictObject({
            idType: z.enum(['bvn', 'nin']),
            number: z.string().regex(/^\d{11}$/),
            phoneNumber: z.string().regex(/^\+\d{8,15}$/),
            name: z.string().max(100),
          }),
        )
        .optional(),
      outboxLimit: z.number().int().min(1).max(1_000_000).optional(),
    },
    { error: 'must be an options object' },
  )
  .refine((options) => options.port === undefined || options.port === 0 || options.ussdPort !== options.port, {
    path: ['ussdPort'],
    error: 'must differ from port: USSD initiation has a listener of its own',
  });

/** GatewayFake options with defaults applied. */
export interface ResolvedGatewayFakeOptions {
  readonly port: number;
  readonly ussdPort: number;
  readonly apiKey: string;
  readonly webhookUrl: string | undefined;
  readonly webhookSecret: string | undefined;
  readonly latencyMs: number;
  readonly slowMs: number;
  readonly webhookRetryDelaysMs: readonly number[];
  readonly webhookMaxRetryAfterMs: number;
  readonly webhookTimeoutMs: number;
  readonly codeTtlMs: number;
  readonly maxAttempts: number;
  readonly identities: readonly TestIdentity[];
  readonly outboxLimit: number;
}

/** The apiKey the fake accepts when none is given. */
export const defaultGatewayFakeApiKey = 'sandbox-api-key';

/** Validates the fake's options (an `InvalidInputError` naming the field) and applies defaults. */
export function resolveGatewayFakeOptions(options: GatewayFakeOptions): ResolvedGatewayFakeOptions {
  const parsed = parseInput(schema, options);
  return {
    port: parsed.port ?? 0,
    ussdPort: parsed.ussdPort ?? 0,
    apiKey: parsed.apiKey ?? defaultGatewayFakeApiKey,
    webhookUrl: parsed.webhookUrl,
    webhookSecret: parsed.webhookSecret,
    latencyMs: parsed.latencyMs ?? 0,
    slowMs: parsed.slowMs ?? 3000,
    webhookRetryDelaysMs: parsed.webhookRetryDelaysMs ?? [1000, 5000, 25_000],
    webhookMaxRetryAfterMs: parsed.webhookMaxRetryAfterMs ?? defaultMaxRetryAfterMs,
    webhookTimeoutMs: parsed.webhookTimeoutMs ?? 5000,
    codeTtlMs: parsed.codeTtlMs ?? 10 * 60_000,
    maxAttempts: parsed.maxAttempts ?? 5,
    identities: parsed.identities ?? defaultTestIdentities,
    outboxLimit: parsed.outboxLimit ?? 1000,
  };
}
