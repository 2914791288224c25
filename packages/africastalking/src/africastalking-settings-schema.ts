import { parseInput } from '@verikit/provider';
import {
  baseUrlSchema,
  checkSettings,
  secretSchema,
  settingReader,
  transportDefaults,
  transportSettingsShape,
  type SettingReader,
  type TransportSettings,
} from '@verikit/provider-utils';
import { z } from 'zod';
import { africasTalkingSenderSchema, usernameSchema } from './africastalking-format.js';
import type { AfricasTalkingProviderSettings } from './africastalking-settings.js';

/** Where the official SDK sends a live application's requests, and the sandbox app's. */
export const africasTalkingBaseUrls = Object.freeze({
  /** A live application's API. */
  live: 'https://api.africastalking.com',
  /** The sandbox app's API (username `sandbox`). */
  sandbox: 'https://api.sandbox.africastalking.com',
});

/** A USSD service code as Africa's Talking writes it: `*384*1234#`. */
const serviceCodeSchema = z
  .string({ error: 'must be a string' })
  .regex(/^\*\d{1,6}(?:\*\d{1,6}){0,4}#$/, { error: 'must be a USSD service code such as *384*1234#' });

/** The schema of {@link AfricasTalkingProviderSettings}: unknown keys are refused, so typos surface. */
const settingsSchema = z.strictObject(
  {
    username: usernameSchema.optional(),
    apiKey: secretSchema.optional(),
    senderId: africasTalkingSenderSchema.optional(),
    baseUrl: baseUrlSchema.optional(),
    ussdServiceCode: serviceCodeSchema.optional(),
    ...transportSettingsShape,
  },
  { error: 'must be a settings object' },
);

/** Settings with defaults applied; the credentials, sender and address read at each call. */
export interface ResolvedAfricasTalkingSettings
  extends TransportSettings<NonNullable<AfricasTalkingProviderSettings['hooks']>> {
  readonly username: SettingReader<string>;
  readonly apiKey: SettingReader<string>;
  readonly senderId: SettingReader<string | undefined>;
  /** The USSD service code of the dial-in capability; undefined: the provider has none. */
  readonly ussdServiceCode: string | undefined;
  /** The base URL given, else the sandbox or live one by the username. */
  readonly baseUrl: () => string;
}

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveAfricasTalkingSettings(settings: unknown): ResolvedAfricasTalkingSettings {
  const parsed = parseInput(settingsSchema, settings ?? {});
  const username = settingReader({
    name: 'username',
    environmentVariable: 'AFRICASTALKING_USERNAME',
    schema: usernameSchema,
    value: parsed.username,
  });
  const apiKey = settingReader({
    name: 'apiKey',
    environmentVariable: 'AFRICASTALKING_API_KEY',
    schema: secretSchema,
    value: parsed.apiKey,
  });
  const senderId = settingReader<string | undefined>({
    name: 'senderId',
    environmentVariable: 'AFRICASTALKING_SENDER_ID',
    schema: africasTalkingSenderSchema,
    value: parsed.senderId,
    optional: true,
  });
  const givenBaseUrl = settingReader<string | undefined>({
    name: 'baseUrl',
    environmentVariable: 'AFRICASTALKING_BASE_URL',
    schema: baseUrlSchema,
    value: parsed.baseUrl,
    optional: true,
  });
  const baseUrl = () =>
    givenBaseUrl() ??
    (username().toLowerCase() === 'sandbox' ? africasTalkingBaseUrls.sandbox : africasTalkingBaseUrls.live);
  checkSettings([username, apiKey, senderId, givenBaseUrl]);
  // Read once, here: whether the provider has a dialIn capability is decided when it is created.
  const ussdServiceCode = settingReader<string | undefined>({
    name: 'ussdServiceCode',
    environmentVariable: 'AFRICASTALKING_USSD_SERVICE_CODE',
    schema: serviceCodeSchema,
    value: parsed.ussdServiceCode,
    optional: true,
  })();
  return {
    username,
    apiKey,
    senderId,
    baseUrl,
    ussdServiceCode,
    ...transportDefaults<NonNullable<AfricasTalkingProviderSettings['hooks']>>(parsed, 'africastalking'),
  };
}
