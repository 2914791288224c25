import { z } from 'zod';
import { receiveDefaults } from '@verikit/core';
import { receiveOptionsSchema } from '@verikit/core/internal';
import { InvalidInputError, parseInput } from '@verikit/provider';
import type { HmacHeaderScheme } from './hmac-header-verifier.js';
import type { WebhookVerifier } from './webhook-verifier.js';

/**
 * The words that turn off webhook authentication. Without a secret every webhook is refused;
 * with this, anyone who can reach the endpoint can verify any USSD flow. For local experiments only.
 */
export const allowUnsignedConsent = 'yes-i-understand-webhooks-are-unauthenticated' as const;

/** How webhooks are signed: Standard Webhooks (the default), an HMAC of the body in a header, or your own verifier. */
export type WebhookScheme = 'standard-webhooks' | HmacHeaderScheme | WebhookVerifier;

/** Options of the webhook endpoint (`createVerikit({ webhooks })`). */
export interface WebhookOptions {
  /**
   * The signing secret from the provider's dashboard. `whsec_<base64>` is decoded (the Standard
   * Webhooks form); any other string is used as its UTF-8 bytes. At least 16 bytes of key.
   * Required: a handler created without one (`secret: process.env.X` with X unset) throws an
   * `InvalidInputError` naming it, unless {@link WebhookOptions.allowUnsigned} is set. Not needed
   * with a custom {@link WebhookVerifier}, which holds its own.
   */
  secret?: string;
  /** Default `'standard-webhooks'`. */
  scheme?: WebhookScheme;
  /** How far a webhook's timestamp may be from the clock, either way, in seconds. Default 300; 1 to 3600. */
  toleranceSeconds?: number;
  /**
   * How long a processed message id is remembered, so a replay is answered `duplicate`. Default 24 h.
   * At least twice the tolerance: a message is acceptable during that whole span.
   */
  replayTtlMs?: number;
  /** The largest body accepted, in bytes. Default 65,536; at most 1 MiB. */
  maxBodyBytes?: number;
  /**
   * How long one delivery waits for its event to be applied before it answers `503 retry`, in ms.
   * Default 10,000; 10 to 120,000. The delivery holds the message a little longer (its lease: this
   * timeout plus 5 s, or plus half of it when shorter), so a process that dies mid-delivery blocks
   * redeliveries only that long.
   */
  processingTimeoutMs?: number;
  /** Accept webhooks without verifying them, when no secret is configured. Spelled out on purpose: {@link allowUnsignedConsent}. */
  allowUnsigned?: typeof allowUnsignedConsent;
}

/** {@link WebhookOptions} with defaults applied. */
export interface ResolvedWebhookOptions {
  /** How errors name an option: `webhooks.secret` under `createFlowHandler`, `secret` for `createWebhookHandler`. */
  readonly fieldPrefix: string | undefined;
  readonly secret: string | undefined;
  readonly scheme: WebhookScheme;
  readonly toleranceSeconds: number;
  readonly replayTtlMs: number;
  readonly maxBodyBytes: number;
  readonly allowUnsigned: boolean;
  readonly processingTimeoutMs: number;
}

/** The defaults of {@link WebhookOptions}. */
export const webhookDefaults = Object.freeze({
  /** Five minutes either way: Standard Webhooks' recommendation. */
  toleranceSeconds: 300,
  /** A day: far longer than any sender keeps redelivering (the engine's `receiveDefaults`). */
  replayTtlMs: receiveDefaults.replayTtlMs,
  /** 64 KiB: far above any verification event. */
  maxBodyBytes: 64 * 1024,
  /** Ten seconds: well within the time a sender waits for an answer (the engine's `receiveDefaults`). */
  processingTimeoutMs: receiveDefaults.processingTimeoutMs,
});

const hmacHeaderSchemeSchema = z.strictObject({
  type: z.literal('hmac-header'),
  header: z
    .string({ error: 'must be a header name' })
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, { error: 'must be a header name' }),
  algorithm: z.enum(['sha256', 'sha512'], { error: 'must be sha256 or sha512' }).optional(),
  encoding: z.enum(['hex', 'base64'], { error: 'must be hex or base64' }).optional(),
  prefix: z.string({ error: 'must be a string' }).max(100, { error: 'must be at most 100 characters' }).optional(),
});

const verifierSchema = z.custom<WebhookVerifier>(
  (value) => typeof value === 'object' && value !== null && typeof (value as WebhookVerifier).verify === 'function',
  { error: "must be 'standard-webhooks', an hmac-header scheme, or an object with a verify function" },
);

/** The webhook body cap: `maxBodyBytes` here, `maxWebhookBodyBytes` under `createFlowHandler`. */
export const webhookBodyBytesSchema = z
  .number({ error: 'must be a number' })
  .int({ error: 'must be whole bytes' })
  .min(1)
  .max(1024 * 1024);

const optionsSchema = z.object({
  secret: z
    .string({ error: 'must be a string' })
    .min(1, { error: 'must not be empty' })
    .max(1024, { error: 'is too long' })
    .optional(),
  scheme: z
    .union([z.literal('standard-webhooks'), hmacHeaderSchemeSchema, verifierSchema], {
      error: "must be 'standard-webhooks', an hmac-header scheme, or an object with a verify function",
    })
    .optional(),
  toleranceSeconds: z
    .number({ error: 'must be a number' })
    .int({ error: 'must be whole seconds' })
    .min(1)
    .max(3600)
    .optional(),
  maxBodyBytes: webhookBodyBytesSchema.optional(),
  // The engine's own rules: `verikit.receive` takes the same two options.
  ...receiveOptionsSchema.shape,
  allowUnsigned: z
    .literal(allowUnsignedConsent, { error: `must be exactly '${allowUnsignedConsent}' when set` })
    .optional(),
});

/** The name of option `name` in errors, under `prefix` (`webhooks.secret`), or bare (`secret`). */
export function webhookOptionField(prefix: string | undefined, name: string): string {
  return prefix === undefined ? name : `${prefix}.${name}`;
}

/**
 * Checks the options and applies the defaults. Throws an `InvalidInputError` naming the field
 * (never echoing the secret): a misconfigured endpoint fails when it is created.
 */
export function resolveWebhookOptions(
  options: WebhookOptions,
  fieldPrefix: string | undefined,
): ResolvedWebhookOptions {
  const parsed = parseInput(optionsSchema, options ?? {}, fieldPrefix);
  const toleranceSeconds = parsed.toleranceSeconds ?? webhookDefaults.toleranceSeconds;
  const processingTimeoutMs = parsed.processingTimeoutMs ?? webhookDefaults.processingTimeoutMs;
  const replayTtlMs = parsed.replayTtlMs ?? Math.max(webhookDefaults.replayTtlMs, 2 * toleranceSeconds * 1000);
  if (replayTtlMs < 2 * toleranceSeconds * 1000) {
    throw new InvalidInputError([
      {
        field: webhookOptionField(fieldPrefix, 'replayTtlMs'),
        message: `must be at least twice toleranceSeconds (${2 * toleranceSeconds * 1000} ms)`,
      },
    ]);
  }
  return {
    fieldPrefix,
    secret: parsed.secret,
    scheme: (options.scheme ?? 'standard-webhooks') as WebhookScheme,
    toleranceSeconds,
    replayTtlMs,
    maxBodyBytes: parsed.maxBodyBytes ?? webhookDefaults.maxBodyBytes,
    allowUnsigned: parsed.allowUnsigned === allowUnsignedConsent,
    processingTimeoutMs,
  };
}

/**
 * Refuses, when the handler is created, options that would refuse every webhook at run time: no
 * secret (an unset environment variable reads as `undefined`), no verifier of one's own, and no
 * explicit opt-out. Without this, every webhook gets 401 and USSD flows wait in `awaiting-dial`
 * until they expire, with nothing failing where the developer looks.
 */
export function requireWebhookSecret(resolved: ResolvedWebhookOptions): void {
  const { scheme, secret, allowUnsigned } = resolved;
  if (secret !== undefined || allowUnsigned || (typeof scheme === 'object' && 'verify' in scheme)) return;
  throw new InvalidInputError([
    {
      field: webhookOptionField(resolved.fieldPrefix, 'secret'),
      message: `is required, since the provider sends webhooks: set it to the signing secret from the provider's dashboard, e.g. { secret: process.env.VERIKIT_WEBHOOK_SECRET } with VERIKIT_WEBHOOK_SECRET=whsec_… in the environment (is that environment variable set?). Only for local experiments, ${webhookOptionField(resolved.fieldPrefix, 'allowUnsigned')} accepts unsigned webhooks`,
    },
  ]);
}
