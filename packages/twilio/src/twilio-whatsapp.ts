import { InvalidInputError } from '@verikit/provider';
import { pickByLocale, type KeyedCodeScheme } from '@verikit/provider-utils';
import type { ResolvedTwilioSettings } from './twilio-settings-schema.js';

/** WhatsApp codes the provider makes and sends through Programmable Messaging (`whatsappCodes: 'messaging'`). */
export const whatsappCodeScheme: KeyedCodeScheme = { prefix: 'twa1', label: 'verikit twilio whatsapp code v1' };

/** Verify's defaults, kept for the codes we make: 6 digits, 10 minutes. */
export const whatsappCodeDigits = 6;
export const whatsappCodeTtlMinutes = 10;

/**
 * The content fields of a WhatsApp message in `locale`: the approved template of that locale (`whatsappContentSids`:
 * the exact tag, then its language), else the default one (`whatsappContentSid`), as `ContentSid` with `value` as
 * its variable `1` in `ContentVariables` (a JSON object of strings, as Twilio's Content API takes it). Free `Body`
 * only when no template is configured at all and the app allowed free text. Anything else is an
 * `InvalidInputError` before any request: free text outside the 24-hour window is accepted by Twilio and then fails
 * (error 63016), and a template is sent in its own language whatever the flow's, so no template is guessed.
 */
export function whatsappContent(
  settings: ResolvedTwilioSettings,
  value: string,
  text: string,
  locale: string | undefined,
): Readonly<Record<string, string>> {
  const contentSid = pickByLocale(settings.whatsappContentSids, locale) ?? settings.whatsappContentSid();
  if (contentSid !== undefined) return { ContentSid: contentSid, ContentVariables: JSON.stringify({ 1: value }) };
  const perLocale = Object.keys(settings.whatsappContentSids).length > 0;
  if (settings.whatsappFreeText && !perLocale) return { Body: text };
  throw new InvalidInputError([
    perLocale
      ? {
          field: 'whatsappContentSid',
          message: `is required for a WhatsApp send ${locale === undefined ? 'without a locale' : `in ${locale}, which whatsappContentSids has no template for (nor its language)`}: configure a default approved template (TWILIO_WHATSAPP_CONTENT_SID), or add one for the locale`,
        }
      : {
          field: 'whatsappContentSid',
          message:
            'is required for WhatsApp: configure an approved template (TWILIO_WHATSAPP_CONTENT_SID), or set whatsappFreeText: true to send free text, which reaches the user only within 24 hours of their last message',
        },
  ]);
}
