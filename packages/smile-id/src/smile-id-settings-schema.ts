import { baseUrlSchema, resolveProviderSettings, secretSchema, type ProviderSettingsOf } from '@verikit/provider-utils';
import { z } from 'zod';

const smileIdOptions = {
  pollAttempts: z
    .number({ error: 'must be a number' })
    .int()
    .min(1, { error: 'must be 1 to 60' })
    .max(60, { error: 'must be 1 to 60' })
    .optional(),
  pollMs: z
    .number({ error: 'must be a number' })
    .int()
    .min(0, { error: 'must be 0 to 10000' })
    .max(10_000, { error: 'must be 0 to 10000' })
    .optional(),
};

/** A partner id: Smile ID's are digits; any 1 to 64 visible characters are taken. */
const partnerIdSchema = z
  .string({ error: 'must be a string' })
  .regex(/^[\x21-\x7e]{1,64}$/, { error: 'must be 1 to 64 visible characters' });

const smileIdEnvironment = {
  partnerId: { variable: 'SMILE_ID_PARTNER_ID', schema: partnerIdSchema },
  apiKey: { variable: 'SMILE_ID_API_KEY', schema: secretSchema },
  baseUrl: { variable: 'SMILE_ID_BASE_URL', schema: baseUrlSchema, fallback: 'https://api.smileidentity.com/v1' },
  callbackUrl: { variable: 'SMILE_ID_CALLBACK_URL', schema: baseUrlSchema, optional: true },
} as const;

/** Settings with defaults applied; credentials and addresses read at each call. */
export type ResolvedSmileIdSettings = ProviderSettingsOf<typeof smileIdEnvironment> & {
  readonly pollAttempts: number;
  readonly pollMs: number;
};

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveSmileIdSettings(settings: unknown): ResolvedSmileIdSettings {
  const { options, readers, transport } = resolveProviderSettings(settings, {
    name: 'smile-id',
    environment: smileIdEnvironment,
    options: smileIdOptions,
  });
  return { ...readers, pollAttempts: options.pollAttempts ?? 10, pollMs: options.pollMs ?? 1000, ...transport };
}
