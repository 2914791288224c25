import { parseInput, senderSchema } from '@verikit/provider';
import {
  baseUrlSchema,
  checkSettings,
  secretSchema,
  settingReader,
  transportSettingsShape,
  type SettingReader,
} from '@verikit/provider-utils';
import { z } from 'zod';
import type { GatewayProviderSettings } from './gateway-settings.js';

const pathSchema = z
  .string({ error: 'must be a dotted path such as data.otp' })
  .max(200, { error: 'must be at most 200 characters', abort: true })
  .regex(/^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*$/, { error: 'must be a dotted path such as data.otp' });

const valuesSchema = z.array(z.string().min(1).max(64), { error: 'must be a list of strings' }).min(1).max(20);

/** The schema of {@link GatewayProviderSettings}: unknown keys are refused, so typos surface. */
const gatewayProviderSettingsSchema = z.strictObject(
  {
    apiKey: secretSchema.optional(),
    baseUrl: baseUrlSchema.optional(),
    ussdBaseUrl: baseUrlSchema.optional(),
    defaultSender: senderSchema.optional(),
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
    ...transportSettingsShape,
  },
  { error: 'must be a settings object' },
);

/** Resolved settings: defaults applied; the key, addresses and sender read through readers, at each call. */
export interface ResolvedGatewaySettings
  extends Omit<
    GatewayProviderSettings,
    | 'apiKey'
    | 'baseUrl'
    | 'ussdBaseUrl'
    | 'defaultSender'
    | 'timeout'
    | 'connectionRetries'
    | 'connectionRetryDelayMs'
    | 'name'
  > {
  readonly apiKey: SettingReader<string>;
  readonly baseUrl: SettingReader<string>;
  readonly ussdBaseUrl: SettingReader<string>;
  readonly defaultSender: SettingReader<string | undefined>;
  readonly timeout: number;
  readonly connectionRetries: number;
  readonly connectionRetryDelayMs: number;
  readonly name: string;
}

/**
 * Validates settings, or throws an `InvalidInputError` naming the field (values are never echoed). The
 * apiKey, base addresses and sender not passed come from `GATEWAY_API_KEY`, `GATEWAY_BASE_URL`,
 * `GATEWAY_USSD_BASE_URL` and `GATEWAY_SENDER`: checked now, read again at each call.
 */
export function resolveGatewaySettings(settings: unknown): ResolvedGatewaySettings {
  const parsed = parseInput(gatewayProviderSettingsSchema, settings === undefined ? {} : settings);
  const apiKey = settingReader({
    name: 'apiKey',
    environmentVariable: 'GATEWAY_API_KEY',
    schema: secretSchema,
    value: parsed.apiKey,
  });
  const baseUrl = settingReader({
    name: 'baseUrl',
    environmentVariable: 'GATEWAY_BASE_URL',
    schema: baseUrlSchema,
    value: parsed.baseUrl,
  });
  const ussdBaseUrl = settingReader({
    name: 'ussdBaseUrl',
    environmentVariable: 'GATEWAY_USSD_BASE_URL',
    schema: baseUrlSchema,
    value: parsed.ussdBaseUrl,
  });
  const defaultSender = settingReader<string | undefined>({
    name: 'defaultSender',
    environmentVariable: 'GATEWAY_SENDER',
    schema: senderSchema,
    value: parsed.defaultSender,
    optional: true,
  });
  checkSettings([apiKey, baseUrl, ussdBaseUrl, defaultSender]);
  return {
    ...(parsed as Omit<GatewayProviderSettings, 'apiKey' | 'baseUrl' | 'ussdBaseUrl' | 'defaultSender'>),
    apiKey,
    baseUrl,
    ussdBaseUrl,
    defaultSender,
    timeout: parsed.timeout ?? 10_000,
    connectionRetries: parsed.connectionRetries ?? 1,
    connectionRetryDelayMs: parsed.connectionRetryDelayMs ?? 50,
    name: parsed.name ?? 'gateway',
  };
}
