import { z } from 'zod';
import { InvalidInputError, type PhoneChannel } from '@verikit/provider';

/**
 * The text of a code's message per locale, and per channel where they differ: `{ fr: 'Votre code : < 1234 >' }`
 * or `{ fr: { sms: '…', whatsapp: '…' } }`. Keys are BCP 47 tags (`en`, `fr`, `pt-BR`); every text holds the
 * provider's code placeholder.
 */
export type MessageTemplates = Readonly<Record<string, string | Readonly<Partial<Record<PhoneChannel, string>>>>>;

/** Picks a template's text for a send: the exact locale, then its language (`pt` for `pt-BR`); undefined when none. */
export type MessageTemplateLookup = (locale: string | undefined, channel: PhoneChannel) => string | undefined;

/** A language tag as a key of a table per locale: `en`, `fr`, `pt-BR`, `zh-Hant-TW`. */
export const localeKeyPattern = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8}){0,2}$/;
const channelKeys = ['sms', 'voice', 'whatsapp'] as const;

/**
 * The entry of a table per locale that a send in `locale` uses: the exact tag, then its language (`pt` for `pt-BR`,
 * `zh` for `zh-Hant-TW`), compared without regard to case as BCP 47 tags are; undefined when neither is there (the
 * caller then uses its default, never something else). One rule for every provider's templates.
 */
export function pickByLocale<T>(table: Readonly<Record<string, T>>, locale: string | undefined): T | undefined {
  if (locale === undefined) return undefined;
  const wanted = [locale.toLowerCase(), locale.split('-')[0]!.toLowerCase()];
  for (const key of wanted) {
    const found = Object.keys(table).find((each) => each.toLowerCase() === key);
    if (found !== undefined) return table[found];
  }
  return undefined;
}

/**
 * Validates `templates` at creation and returns the lookup a provider uses at each send. Throws an
 * `InvalidInputError` naming the template (`messageTemplates.fr.whatsapp`) whose text lacks `placeholder`, is
 * longer than `maxLength`, or whose locale or channel is not one. `channels`: the channels whose sends take a text
 * (default all three); a template for another one would never be used, so it is refused, with `why` as the reason.
 */
export function parseMessageTemplates(
  field: string,
  templates: unknown,
  options: {
    placeholder: string;
    maxLength: number;
    channels?: { readonly take: readonly PhoneChannel[]; readonly why: string };
  },
): MessageTemplateLookup {
  const taken = options.channels?.take ?? channelKeys;
  if (templates === undefined) return () => undefined;
  const issues: Array<{ field: string; message: string }> = [];
  const text = (path: string, value: unknown) => {
    const parsed = z
      .string({ error: 'must be a string' })
      .min(1, { error: 'must not be empty', abort: true })
      .max(options.maxLength, { error: `must be at most ${options.maxLength} characters`, abort: true })
      .refine((each) => each.includes(options.placeholder), {
        error: `must contain ${options.placeholder} where the code goes`,
      })
      .safeParse(value);
    if (!parsed.success) issues.push({ field: path, message: parsed.error.issues[0]!.message });
  };
  if (typeof templates !== 'object' || templates === null || Array.isArray(templates)) {
    throw new InvalidInputError([{ field, message: 'must be an object of texts per locale' }]);
  }
  for (const [locale, value] of Object.entries(templates)) {
    const path = `${field}.${locale.slice(0, 40)}`;
    if (!localeKeyPattern.test(locale))
      issues.push({ field: path, message: 'must be a language tag such as en or pt-BR' });
    else if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [channel, each] of Object.entries(value)) {
        if ((taken as readonly string[]).includes(channel)) text(`${path}.${channel}`, each);
        else if ((channelKeys as readonly string[]).includes(channel))
          issues.push({ field: `${path}.${channel}`, message: options.channels!.why });
        else issues.push({ field: `${path}.${channel.slice(0, 40)}`, message: 'must be sms, voice or whatsapp' });
      }
    } else text(path, value);
  }
  if (issues.length > 0) throw new InvalidInputError(issues);
  const table = structuredClone(templates) as MessageTemplates;
  return (locale, channel) => {
    if (!taken.includes(channel)) return undefined;
    // The texts for this channel only, so that `pt-BR` without an SMS text falls back to `pt`'s.
    const texts: Record<string, string> = {};
    for (const [key, entry] of Object.entries(table)) {
      const text = typeof entry === 'string' ? entry : entry[channel];
      if (text !== undefined) texts[key] = text;
    }
    return pickByLocale(texts, locale);
  };
}
