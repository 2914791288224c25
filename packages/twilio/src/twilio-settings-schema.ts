import {
  androidAppHashSchema,
  baseUrlSchema,
  localeKeyPattern,
  resolveProviderSettings,
  secretSchema,
  type SettingReader,
  type TransportSettings,
} from '@verikit/provider-utils';
import { z } from 'zod';
import {
  accountSidSchema,
  apiKeySidSchema,
  callbackUrlSchema,
  contentSidSchema,
  e164Schema,
  localeSchema,
  messagingServiceSidSchema,
  twilioSenderSchema,
  verifyServiceSidSchema,
} from './twilio-format.js';
import type { TwilioProviderSettings } from './twilio-settings.js';

/** Twilio's options besides the environment settings and the transport: unknown keys are refused, so typos surface. */
const twilioOptions = {
  whatsappContentSids: z
    .record(
      z.string().regex(localeKeyPattern, { error: 'must be a language tag such as en or pt-BR' }),
      contentSidSchema,
      { error: 'must be an object of content SIDs per language' },
    )
    .optional(),
  whatsappFreeText: z.boolean({ error: 'must be a boolean' }).optional(),
  whatsappCodes: z.enum(['verify', 'messaging'], { error: 'must be verify or messaging' }).optional(),
  locale: localeSchema.optional(),
  customCode: z.boolean({ error: 'must be a boolean' }).optional(),
  appHash: androidAppHashSchema.optional(),
};

/** The settings that come from the environment when not passed, read at each call. */
const twilioEnvironment = {
  accountSid: { variable: 'TWILIO_ACCOUNT_SID', schema: accountSidSchema },
  authToken: { variable: 'TWILIO_AUTH_TOKEN', schema: secretSchema, optional: true },
  apiKeySid: { variable: 'TWILIO_API_KEY_SID', schema: apiKeySidSchema, optional: true },
  apiKeySecret: { variable: 'TWILIO_API_KEY_SECRET', schema: secretSchema, optional: true },
  verifyServiceSid: { variable: 'TWILIO_VERIFY_SERVICE_SID', schema: verifyServiceSidSchema, optional: true },
  from: { variable: 'TWILIO_FROM', schema: twilioSenderSchema, optional: true },
  messagingServiceSid: { variable: 'TWILIO_MESSAGING_SERVICE_SID', schema: messagingServiceSidSchema, optional: true },
  whatsappFrom: { variable: 'TWILIO_WHATSAPP_FROM', schema: e164Schema, optional: true },
  whatsappContentSid: { variable: 'TWILIO_WHATSAPP_CONTENT_SID', schema: contentSidSchema, optional: true },
  statusCallbackUrl: { variable: 'TWILIO_STATUS_CALLBACK_URL', schema: callbackUrlSchema, optional: true },
  verifyBaseUrl: { variable: 'TWILIO_VERIFY_BASE_URL', schema: baseUrlSchema, fallback: 'https://verify.twilio.com' },
  apiBaseUrl: { variable: 'TWILIO_API_BASE_URL', schema: baseUrlSchema, fallback: 'https://api.twilio.com' },
} as const;

/** How {@link resolveProviderSettings} reads these settings. */
const twilioSettings = { name: 'twilio', environment: twilioEnvironment, options: twilioOptions };

/** Settings with defaults applied; credentials, SIDs, senders and addresses read at each call (missing credentials are the client's to refuse). */
export interface ResolvedTwilioSettings extends TransportSettings<NonNullable<TwilioProviderSettings['hooks']>> {
  readonly accountSid: SettingReader<string>;
  /** The Basic auth pair is made of these by the client: an API key's SID and secret, else the auth token. */
  readonly authToken: SettingReader<string | undefined>;
  readonly apiKeySid: SettingReader<string | undefined>;
  readonly apiKeySecret: SettingReader<string | undefined>;
  readonly verifyServiceSid: SettingReader<string | undefined>;
  readonly from: SettingReader<string | undefined>;
  readonly messagingServiceSid: SettingReader<string | undefined>;
  readonly whatsappFrom: SettingReader<string | undefined>;
  readonly whatsappContentSid: SettingReader<string | undefined>;
  /** Approved templates per language (`whatsappContentSids`), looked up by `pickByLocale`. */
  readonly whatsappContentSids: Readonly<Record<string, string>>;
  readonly statusCallbackUrl: SettingReader<string | undefined>;
  readonly whatsappFreeText: boolean;
  readonly whatsappCodes: 'verify' | 'messaging';
  readonly verifyBaseUrl: SettingReader<string>;
  readonly apiBaseUrl: SettingReader<string>;
  readonly locale: string | undefined;
  readonly customCode: boolean;
  /** An Android app's SMS Retriever hash, sent as `AppHash` with SMS verifications. */
  readonly appHash: string | undefined;
}

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveTwilioSettings(settings: unknown): ResolvedTwilioSettings {
  const { options, readers, transport } = resolveProviderSettings(settings, twilioSettings);
  return {
    ...readers,
    locale: options.locale,
    whatsappContentSids: Object.freeze({ ...options.whatsappContentSids }),
    customCode: options.customCode ?? false,
    appHash: options.appHash,
    whatsappFreeText: options.whatsappFreeText ?? false,
    whatsappCodes: options.whatsappCodes ?? 'verify',
    ...transport,
  };
}
