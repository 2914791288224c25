import { parseInput } from '@verikit/provider';
import {
  baseUrlSchema,
  checkSettings,
  parseMessageTemplates,
  secretSchema,
  settingReader,
  transportDefaults,
  transportSettingsShape,
  type MessageTemplateLookup,
  type SettingReader,
  type TransportSettings,
} from '@verikit/provider-utils';
import { z } from 'zod';
import { pinPlaceholder, termiiSenderSchema, whatsappFromSchema } from './termii-format.js';
import type { TermiiProviderSettings, TermiiRoute } from './termii-settings.js';

const route = z.enum(['dnd', 'generic'], { error: 'must be dnd or generic' });

/** The schema of {@link TermiiProviderSettings}: unknown keys are refused, so typos surface. */
const termiiSettingsSchema = z.strictObject(
  {
    apiKey: secretSchema.optional(),
    baseUrl: baseUrlSchema.optional(),
    senderId: termiiSenderSchema.optional(),
    whatsappFrom: whatsappFromSchema.optional(),
    otpRoute: route.optional(),
    messageRoute: route.optional(),
    pinLength: z
      .number({ error: 'must be a number' })
      .int()
      .min(4, { error: 'must be 4 to 8' })
      .max(8, { error: 'must be 4 to 8' })
      .optional(),
    pinAttempts: z
      .number({ error: 'must be a number' })
      .int()
      .min(1, { error: 'must be 1 to 100' })
      .max(100, { error: 'must be 1 to 100' })
      .optional(),
    pinTimeToLiveMinutes: z
      .number({ error: 'must be a number' })
      .int()
      .min(0, { error: 'must be 0 to 60' })
      .max(60, { error: 'must be 0 to 60' })
      .optional(),
    messageText: z
      .string({ error: 'must be a string' })
      .max(480, { error: 'must be at most 480 characters', abort: true })
      .refine((text) => text.includes(pinPlaceholder), { error: `must contain ${pinPlaceholder} where the code goes` })
      .optional(),
    // Checked by parseMessageTemplates, which names the template that is wrong.
    messageTemplates: z.unknown().optional(),
    ...transportSettingsShape,
  },
  { error: 'must be a settings object' },
);

/** Settings with defaults applied; the key, address and senders read at each call. */
export interface ResolvedTermiiSettings extends TransportSettings<NonNullable<TermiiProviderSettings['hooks']>> {
  readonly apiKey: SettingReader<string>;
  readonly baseUrl: SettingReader<string>;
  readonly senderId: SettingReader<string | undefined>;
  readonly whatsappFrom: SettingReader<string | undefined>;
  readonly otpRoute: TermiiRoute;
  readonly messageRoute: TermiiRoute;
  readonly pinLength: number;
  readonly pinAttempts: number;
  readonly pinTimeToLiveMinutes: number;
  readonly messageText: string;
  /** The text of `messageTemplates` for a send's locale and channel; undefined: `messageText`. */
  readonly messageTemplates: MessageTemplateLookup;
}

/** A reader of an optional setting: `undefined` when neither passed nor set. */
function optional<T>(
  name: string,
  environmentVariable: string,
  schema: z.ZodType<T, string>,
  value: T | undefined,
): SettingReader<T | undefined> {
  return settingReader<T | undefined>({ name, environmentVariable, schema, value, optional: true });
}

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveTermiiSettings(settings: unknown): ResolvedTermiiSettings {
  const parsed = parseInput(termiiSettingsSchema, settings ?? {});
  const apiKey = settingReader({
    name: 'apiKey',
    environmentVariable: 'TERMII_API_KEY',
    schema: secretSchema,
    value: parsed.apiKey,
  });
  const baseUrl = settingReader({
    name: 'baseUrl',
    environmentVariable: 'TERMII_BASE_URL',
    schema: baseUrlSchema,
    value: parsed.baseUrl,
    fallback: 'https://api.ng.termii.com',
  });
  const senderId = optional('senderId', 'TERMII_SENDER_ID', termiiSenderSchema, parsed.senderId);
  const whatsappFrom = optional('whatsappFrom', 'TERMII_WHATSAPP_FROM', whatsappFromSchema, parsed.whatsappFrom);
  checkSettings([apiKey, baseUrl, senderId, whatsappFrom]);
  return {
    apiKey,
    baseUrl,
    senderId,
    whatsappFrom,
    otpRoute: parsed.otpRoute ?? 'dnd',
    messageRoute: parsed.messageRoute ?? 'generic',
    pinLength: parsed.pinLength ?? 6,
    pinAttempts: parsed.pinAttempts ?? 5,
    pinTimeToLiveMinutes: parsed.pinTimeToLiveMinutes ?? 10,
    messageText: parsed.messageText ?? `Your verification code is ${pinPlaceholder}`,
    messageTemplates: parseMessageTemplates('messageTemplates', parsed.messageTemplates, {
      placeholder: pinPlaceholder,
      maxLength: 480,
      // Only Send Token takes a text: Voice Token reads the code out, and Send WhatsApp Token takes the bare code,
      // which Termii puts in its own approved template (no text, no language). A text for them would never be sent.
      channels: {
        take: ['sms'],
        why: "is never sent: Termii's voice and WhatsApp codes take no text (Termii writes the message), only SMS codes do",
      },
    }),
    ...transportDefaults<NonNullable<TermiiProviderSettings['hooks']>>(parsed, 'termii'),
  };
}
