import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { FlowPolicies } from '@verikit/core';
import { InvalidInputError, parseInput } from '@verikit/provider';

/** The process environment, or the part of it a test passes. */
export type Env = Readonly<Record<string, string | undefined>>;

/** What the server takes from the environment, besides the provider (see provider-from-env.ts). */
export interface ServerSettings {
  /** The port to listen on, on `host`. 0 picks a free one. */
  readonly port: number;
  readonly host: string;
  /** The engine's secret (OTP hashes, sealed BVNs). */
  readonly secret: string;
  /** Policy overrides: short cooldowns and few attempts make the states easy to reach by hand and in tests. */
  readonly policies: Partial<FlowPolicies>;
}

const whole = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, { error: 'must be a whole number' })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { error: `must be at least ${min}` })
        .max(max, { error: `must be at most ${max}` }),
    )
    .optional();

const envSchema = z.object({
  PORT: whole(0, 65_535),
  HOST: z.string().min(1).optional(),
  VERIKIT_SECRET: z.string().min(32, { error: 'must be at least 32 characters' }).optional(),
  VERIKIT_PROVIDER: z.string().optional(),
  VERIKIT_MAX_ATTEMPTS: whole(1, 100),
  VERIKIT_RESEND_COOLDOWN_MS: whole(0),
  VERIKIT_CODE_TTL_MS: whole(1000),
  VERIKIT_EFFECT_TIMEOUT_MS: whole(100),
});

/**
 * Reads the server's settings from the environment; a malformed value is an `InvalidInputError`
 * naming the variable (never its value). Only a real provider needs `VERIKIT_SECRET`: with the
 * sandbox or the test double a fresh secret per process is enough, since flows live in memory.
 */
export function settingsFromEnv(env: Env): ServerSettings {
  const parsed = parseInput(envSchema, pick(env, Object.keys(envSchema.shape)));
  const provider = parsed.VERIKIT_PROVIDER ?? 'sandbox';
  if (parsed.VERIKIT_SECRET === undefined && provider !== 'sandbox' && provider !== 'test') {
    throw new InvalidInputError([
      {
        field: 'VERIKIT_SECRET',
        message: 'is required with a real provider: 32 characters or more, kept out of source control',
      },
    ]);
  }
  const policies: Partial<FlowPolicies> = {};
  if (parsed.VERIKIT_MAX_ATTEMPTS !== undefined) policies.maxAttempts = parsed.VERIKIT_MAX_ATTEMPTS;
  if (parsed.VERIKIT_RESEND_COOLDOWN_MS !== undefined) policies.resendCooldownMs = parsed.VERIKIT_RESEND_COOLDOWN_MS;
  if (parsed.VERIKIT_CODE_TTL_MS !== undefined) policies.codeTtlMs = parsed.VERIKIT_CODE_TTL_MS;
  if (parsed.VERIKIT_EFFECT_TIMEOUT_MS !== undefined) policies.effectTimeoutMs = parsed.VERIKIT_EFFECT_TIMEOUT_MS;
  return {
    port: parsed.PORT ?? 3000,
    host: parsed.HOST ?? '127.0.0.1',
    secret: parsed.VERIKIT_SECRET ?? randomBytes(32).toString('base64url'),
    policies,
  };
}

/** The listed variables that are set, so that the rest of the environment is never parsed (nor echoed). */
function pick(env: Env, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') picked[name] = value;
  }
  return picked;
}
