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
import type { GatewayProviderOptions } from './gateway-options.js';

const pathSchema = z
  .string({ error: 'must be a dotted path such as data.otp' })
  .max(200, { error: 'must be at most 200 characters', abort: true })
  .regex(/^[A-Za-z_$][\w$-]*(?:\.[A-Za-z_$][\w$-]*)*$/, { error: 'must be a dotted path such as data.otp' });

const valuesSchema = z.array(z.string().min(1).max(64), { error: 'must be a list of strings' }).min(1).max(20);

/** The schema of {@link GatewayProviderOptions}: unknown keys are refused, so typos surface. */
const gatewayProviderOptionsSchema = z.strictObject(
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
  { error: 'must be an options object' },
);

/** Resolved options: defaults applied; the key and addresses read through readers, at each call. */
export interface ResolvedGatewayOptions
  extends Omit<
    GatewayProviderOptions,
    'apiKey' | 'baseUrl' | 'ussdBaseUrl' | 'timeout' | 'connectionRetries' | 'connectionRetryDelayMs' | 'name'
  > {
  readonly apiKey: SettingReader<string>;
  readonly baseUrl: SettingReader<string>;
  readonly ussdBaseUrl: SettingReader<string>;
  readonly timeout: number;
  readonly connectionRetries: number;
  readonly connectionRetryDelayMs: number;
  readonly name: string;
}

/**
 * Validates options, or throws an `InvalidInputError` naming the field (values are never echoed). The
 * apiKey and base addresses not passed come from `GATEWAY_API_KEY`, `GATEWAY_BASE_URL` and
 * `GATEWAY_USSD_BASE_URL`: checked now, read again at each call.
 */
export function resolveGatewayOptions(options: unknown): ResolvedGatewayOptions {
  const parsed = parseInput(gatewayProviderOptionsSchema, options);
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
  checkSettings([apiKey, baseUrl, ussdBaseUrl]);
  return {
    ...(parsed as Omit<GatewayProviderOptions, 'apiKey' | 'baseUrl' | 'ussdBaseUrl'>),
    apiKey,
    baseUrl,
    ussdBaseUrl,
    timeout: parsed.timeout ?? 10_000,
    connectionRetries: parsed.connectionRetries ?? 1,
    connectionRetryDelayMs: parsed.connectionRetryDelayMs ?? 50,
    name: parsed.name ?? 'gateway',
  };
}
