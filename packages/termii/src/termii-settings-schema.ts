import {
  androidAppHashSchema,
  baseUrlSchema,
  fitsOneSms,
  originBoundHostSchema,
  originBoundText,
  parseMessageTemplates,
  resolveProviderSettings,
  secretSchema,
  type MessageTemplateLookup,
  type MessageTemplates,
  type SettingReader,
  type TransportSettings,
} from '@verikit/provider-utils';
import { InvalidInputError } from '@verikit/provider';
import { z } from 'zod';
import { pinPlaceholder, termiiSenderSchema, whatsappFromSchema } from './termii-format.js';
import type { TermiiProviderSettings, TermiiRoute, TermiiSmsCodes } from './termii-settings.js';

const route = z.enum(['dnd', 'generic'], { error: 'must be dnd or generic' });

/** A whole number from `min` to `max`. */
const wholeNumber = (min: number, max: number) =>
  z
    .number({ error: 'must be a number' })
    .int()
    .min(min, { error: `must be ${min} to ${max}` })
    .max(max, { error: `must be ${min} to ${max}` });

/** Termii's options besides the environment settings and the transport: unknown keys are refused, so typos surface. */
const termiiOptions = {
  otpRoute: route.optional(),
  messageRoute: route.optional(),
  smsCodes: z.enum(['token', 'messaging'], { error: 'must be token or messaging' }).optional(),
  dndLookup: z.boolean({ error: 'must be true or false' }).optional(),
  pinLength: wholeNumber(4, 8).optional(),
  pinAttempts: wholeNumber(1, 100).optional(),
  pinTimeToLiveMinutes: wholeNumber(0, 60).optional(),
  messageText: z
    .string({ error: 'must be a string' })
    .max(480, { error: 'must be at most 480 characters', abort: true })
    .refine((text) => text.includes(pinPlaceholder), { error: `must contain ${pinPlaceholder} where the code goes` })
    .optional(),
  // Checked by parseMessageTemplates, which names the template that is wrong.
  messageTemplates: z.unknown().optional(),
  originBoundHost: originBoundHostSchema.optional(),
  appHash: androidAppHashSchema.optional(),
};

/** The settings that come from the environment when not passed, read at each call. */
const termiiEnvironment = {
  apiKey: { variable: 'TERMII_API_KEY', schema: secretSchema },
  baseUrl: { variable: 'TERMII_BASE_URL', schema: baseUrlSchema, fallback: 'https://api.ng.termii.com' },
  senderId: { variable: 'TERMII_SENDER_ID', schema: termiiSenderSchema, optional: true },
  whatsappFrom: { variable: 'TERMII_WHATSAPP_FROM', schema: whatsappFromSchema, optional: true },
} as const;

/** How {@link resolveProviderSettings} reads these settings. */
const termiiSettings = { name: 'termii', environment: termiiEnvironment, options: termiiOptions };

/** Settings with defaults applied; the key, address and senders read at each call. */
export interface ResolvedTermiiSettings extends TransportSettings<NonNullable<TermiiProviderSettings['hooks']>> {
  readonly apiKey: SettingReader<string>;
  readonly baseUrl: SettingReader<string>;
  readonly senderId: SettingReader<string | undefined>;
  readonly whatsappFrom: SettingReader<string | undefined>;
  readonly otpRoute: TermiiRoute;
  readonly messageRoute: TermiiRoute;
  readonly smsCodes: TermiiSmsCodes;
  readonly dndLookup: boolean;
  readonly pinLength: number;
  readonly pinAttempts: number;
  readonly pinTimeToLiveMinutes: number;
  readonly messageText: string;
  /** The text of `messageTemplates` for a send's locale and channel; undefined: `messageText`. */
  readonly messageTemplates: MessageTemplateLookup;
}

/** Validates settings, or throws an `InvalidInputError` naming the setting (values are never echoed). */
export function resolveTermiiSettings(settings: unknown): ResolvedTermiiSettings {
  const { options, readers, transport } = resolveProviderSettings(settings, termiiSettings);
  const pinLength = options.pinLength ?? 6;
  const otpRoute = options.otpRoute ?? 'dnd';
  if (options.dndLookup === true && otpRoute !== 'generic')
    throw new InvalidInputError([
      {
        field: 'dndLookup',
        message:
          "needs otpRoute: 'generic': codes on the dnd route reach numbers on Do-Not-Disturb, so a lookup would leave nothing out",
      },
    ]);
  const messageTemplates = parseMessageTemplates('messageTemplates', options.messageTemplates, {
    placeholder: pinPlaceholder,
    maxLength: 480,
    // Only Send Token takes a text: Voice Token reads the code out, and Send WhatsApp Token takes the bare code,
    // which Termii puts in its own approved template (no text, no language). A text for them would never be sent.
    channels: {
      take: ['sms'],
      why: "is never sent: Termii's voice and WhatsApp codes take no text (Termii writes the message), only SMS codes do",
    },
  });
  // The origin line and the app hash come from these settings only, never from a request.
  const bound = {
    ...(options.originBoundHost === undefined ? {} : { host: options.originBoundHost }),
    ...(options.appHash === undefined ? {} : { appHash: options.appHash }),
  };
  const withLine = (text: string) => originBoundText(text, pinPlaceholder, bound);
  const messageText = withLine(options.messageText ?? `Your verification code is ${pinPlaceholder}`);
  if (bound.host !== undefined || bound.appHash !== undefined)
    checkOneSms(messageText, options.messageTemplates as MessageTemplates | undefined, pinLength, withLine);
  return {
    ...readers,
    otpRoute,
    messageRoute: options.messageRoute ?? 'generic',
    smsCodes: options.smsCodes ?? 'token',
    dndLookup: options.dndLookup ?? false,
    pinLength,
    pinAttempts: options.pinAttempts ?? 5,
    pinTimeToLiveMinutes: options.pinTimeToLiveMinutes ?? 10,
    messageText,
    messageTemplates: (locale, channel) => {
      const text = messageTemplates(locale, channel);
      return text === undefined ? undefined : withLine(text);
    },
    ...transport,
  };
}

/**
 * With the origin line or an app hash, every SMS text must stay one message once the code is in: Android's SMS
 * Retriever reads only a single message of at most 140 bytes, and an operator splitting it could leave the line
 * out of the part a browser reads. A longer text is an `InvalidInputError` naming it, at creation.
 */
function checkOneSms(
  messageText: string,
  templates: MessageTemplates | undefined,
  pinLength: number,
  withLine: (text: string) => string,
): void {
  const texts: Array<[string, string]> = [['messageText', messageText]];
  for (const [locale, value] of Object.entries(templates ?? {})) {
    if (typeof value === 'string') texts.push([`messageTemplates.${locale}`, withLine(value)]);
    else if (value.sms !== undefined) texts.push([`messageTemplates.${locale}.sms`, withLine(value.sms)]);
  }
  const issues = texts
    .map(([field, text]) => [field, text.split(pinPlaceholder).join('0'.repeat(pinLength))] as const)
    .filter(([, sent]) => !fitsOneSms(sent))
    .map(([field, sent]) => ({
      field,
      message: `must fit one SMS with originBoundHost or appHash (160 GSM-7 characters, or 70 with any other character); with the code and the origin line it is ${sent.length} characters: shorten it`,
    }));
  if (issues.length > 0) throw new InvalidInputError(issues);
}
