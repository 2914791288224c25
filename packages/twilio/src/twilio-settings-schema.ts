import { InvalidInputError, parseInput } from '@verikit/provider';
import {
  baseUrlSchema,
  checkSettings,
  localeKeyPattern,
  secretSchema,
  settingReader,
  transportDefaults,
  transportSettingsShape,
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

/** The schema of {@link TwilioProviderSettings}: unknown keys are refused, so typos surface. */
const twilioSettingsSchema = z.strictObject(
  {
    accountSid: accountSidSchema.optional(),
    authToken: secretSchema.optional(),
    apiKeySid: apiKeySidSchema.optional(),
    apiKeySecret: secretSchema.optional(),
    verifyServiceSid: verifyServiceSidSchema.optional(),
    from: twilioSenderSchema.optional(),
    messagingServiceSid: messagingServiceSidSchema.optional(),
    whatsappFrom: e164Schema.optional(),
    whatsappContentSid: contentSidSchema.optional(),
    whatsappContentSids: z
      .record(
        z.string().regex(localeKeyPattern, { error: 'must be a language tag such as en or pt-BR' }),
        contentSidSchema,
        { error: 'must be an object of content SIDs per language' },
      )
      .optional(),
    whatsappFreeText: z.boolean({ error: 'must be a boolean' }).optional(),
    whatsappCodes: z.enum(['verify', 'messaging'], { error: 'must be verify or messaging' }).optional(),
    statusCallbackUrl: callbackUrlSchema.optional(),
    locale: localeSchema.optional(),
    customCode: z.boolean({ error: 'must be a boolean' }).optional(),
    verifyBaseUrl: baseUrlSchema.optional(),
    apiBaseUrl: baseUrlSchema.optional(),
    ...transportSettingsShape,
  },
  { error: 'must be a settings object' },
);

/** Basic auth credentials: the username (account or API key SID) and the password (auth token or key secret). */
interface TwilioCredentials {
  readonly username: string;
  readonly password: string;
}

/** Settings with defaults applied; credentials, SIDs, senders and addresses read at each call. */
export interface ResolvedTwilioSettings extends TransportSettings<NonNullable<TwilioProviderSettings['hooks']>> {
  readonly accountSid: SettingReader<string>;
  readonly credentials: () => TwilioCredentials;
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
}

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveTwilioSettings(settings: unknown): ResolvedTwilioSettings {
  const parsed = parseInput(twilioSettingsSchema, settings ?? {});
  const optional = <T>(name: string, environmentVariable: string, schema: z.ZodType<T, string>, value: T | undefined) =>
    settingReader<T | undefined>({ name, environmentVariable, schema, value, optional: true });
  const accountSid = settingReader({
    name: 'accountSid',
    environmentVariable: 'TWILIO_ACCOUNT_SID',
    schema: accountSidSchema,
    value: parsed.accountSid,
  });
  const authToken = optional('authToken', 'TWILIO_AUTH_TOKEN', secretSchema, parsed.authToken);
  const apiKeySid = optional('apiKeySid', 'TWILIO_API_KEY_SID', apiKeySidSchema, parsed.apiKeySid);
  const apiKeySecret = optional('apiKeySecret', 'TWILIO_API_KEY_SECRET', secretSchema, parsed.apiKeySecret);
  const credentials = (): TwilioCredentials => {
    const keySid = apiKeySid();
    if (keySid !== undefined) {
      const secret = apiKeySecret();
      if (secret === undefined)
        throw new InvalidInputError([
          { field: 'apiKeySecret', message: 'is required with apiKeySid: pass it, or set TWILIO_API_KEY_SECRET' },
        ]);
      return { username: keySid, password: secret };
    }
    const token = authToken();
    if (token === undefined) {
      throw new InvalidInputError([
        {
          field: 'authToken',
          message: 'is required: pass authToken (or apiKeySid and apiKeySecret), or set TWILIO_AUTH_TOKEN',
        },
      ]);
    }
    return { username: accountSid(), password: token };
  };
  const readers = {
    verifyServiceSid: optional(
      'verifyServiceSid',
      'TWILIO_VERIFY_SERVICE_SID',
      verifyServiceSidSchema,
      parsed.verifyServiceSid,
    ),
    from: optional('from', 'TWILIO_FROM', twilioSenderSchema, parsed.from),
    messagingServiceSid: optional(
      'messagingServiceSid',
      'TWILIO_MESSAGING_SERVICE_SID',
      messagingServiceSidSchema,
      parsed.messagingServiceSid,
    ),
    whatsappFrom: optional('whatsappFrom', 'TWILIO_WHATSAPP_FROM', e164Schema, parsed.whatsappFrom),
    whatsappContentSid: optional(
      'whatsappContentSid',
      'TWILIO_WHATSAPP_CONTENT_SID',
      contentSidSchema,
      parsed.whatsappContentSid,
    ),
    statusCallbackUrl: optional(
      'statusCallbackUrl',
      'TWILIO_STATUS_CALLBACK_URL',
      callbackUrlSchema,
      parsed.statusCallbackUrl,
    ),
    verifyBaseUrl: settingReader({
      name: 'verifyBaseUrl',
      environmentVariable: 'TWILIO_VERIFY_BASE_URL',
      schema: baseUrlSchema,
      value: parsed.verifyBaseUrl,
      fallback: 'https://verify.twilio.com',
    }),
    apiBaseUrl: settingReader({
      name: 'apiBaseUrl',
      environmentVariable: 'TWILIO_API_BASE_URL',
      schema: baseUrlSchema,
      value: parsed.apiBaseUrl,
      fallback: 'https://api.twilio.com',
    }),
  };
  checkSettings([accountSid, credentials, ...Object.values(readers)]);
  return {
    accountSid,
    credentials,
    ...readers,
    locale: parsed.locale,
    whatsappContentSids: Object.freeze({ ...parsed.whatsappContentSids }),
    customCode: parsed.customCode ?? false,
    whatsappFreeText: parsed.whatsappFreeText ?? false,
    whatsappCodes: parsed.whatsappCodes ?? 'verify',
    ...transportDefaults<NonNullable<TwilioProviderSettings['hooks']>>(parsed, 'twilio'),
  };
}
