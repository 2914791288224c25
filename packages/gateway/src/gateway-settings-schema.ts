import { senderSchema } from '@verikit/provider';
import { baseUrlSchema, resolveProviderSettings, secretSchema, type ProviderSettingsOf } from '@verikit/provider-utils';
import { z } from 'zod';
import type { GatewayMapping } from './gateway-settings.js';

const pathSchema = z
  .string({ error: 'must be a dotted path such as data.otp' })
  .max(200, { error: 'must be at most 200 characters', abort: true })
  .regex(/^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*$/, { error: 'must be a dotted path such as data.otp' });

const valuesSchema = z.array(z.string().min(1).max(64), { error: 'must be a list of strings' }).min(1).max(20);

/** The gateway's options besides the environment settings and the transport: unknown keys are refused. */
const gatewayOptions = {
  mapping: z
    .strictObject({
      ussd: z
        .strictObject({
          otp: pathSchema.optional(),
          ussdCode: pathSchema.optional(),
          reference: pathSchema.optional(),
        })
        .optional(),
      phone: z
        .strictObject({
          requestId: pathSchema.optional(),
          valid: pathSchema.optional(),
          channelField: z
            .string()
            .regex(/^[A-Za-z_$][\w$-]{0,63}$/, { error: 'must be a field name' })
            .optional(),
          channelValues: z
            .strictObject({ sms: z.string().min(1).max(64).optional(), voice: z.string().min(1).max(64).optional() })
            .optional(),
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
  ninPattern: z.instanceof(RegExp, { error: 'must be a RegExp' }).optional(),
};

/** The settings that come from the environment when not passed, read at each call. */
const gatewayEnvironment = {
  apiKey: { variable: 'GATEWAY_API_KEY', schema: secretSchema },
  baseUrl: { variable: 'GATEWAY_BASE_URL', schema: baseUrlSchema },
  ussdBaseUrl: { variable: 'GATEWAY_USSD_BASE_URL', schema: baseUrlSchema },
  defaultSender: { variable: 'GATEWAY_SENDER', schema: senderSchema, optional: true },
} as const;

/** How {@link resolveProviderSettings} reads these settings. */
const gatewaySettings = { name: 'gateway', environment: gatewayEnvironment, options: gatewayOptions };

/** Resolved settings: defaults applied; the key, addresses and sender read through readers, at each call. */
export type ResolvedGatewaySettings = ProviderSettingsOf<typeof gatewayEnvironment> & {
  /** Where fields are in responses and webhooks. */
  readonly mapping: GatewayMapping | undefined;
  /** What a NIN looks like; undefined: 11 digits. */
  readonly ninPattern: RegExp | undefined;
};

/**
 * Validates settings, or throws an `InvalidInputError` naming the field (values are never echoed). The
 * apiKey, base addresses and sender not passed come from `GATEWAY_API_KEY`, `GATEWAY_BASE_URL`,
 * `GATEWAY_USSD_BASE_URL` and `GATEWAY_SENDER`: checked now, read again at each call.
 */
export function resolveGatewaySettings(settings: unknown): ResolvedGatewaySettings {
  const { options, readers, transport } = resolveProviderSettings(settings, gatewaySettings);
  return {
    ...readers,
    mapping: options.mapping as GatewayMapping | undefined,
    ninPattern: options.ninPattern,
    ...transport,
  };
}
