import type { PhoneChannel, ProviderV1 } from '@verikit/provider';
import { expect, it } from 'vitest';
import { freshPhoneNumber } from '../fresh-phone-number.js';
import { context } from './contract-helpers.js';

/** A message template the subject's provider was made with. */
export interface ContractTemplate {
  /** The template's locale: the suite sends in it. */
  readonly locale: string;
  /** The template's channel: the suite sends by it. */
  readonly channel: PhoneChannel;
  /** The text the phone must show for `code`. */
  text(code: string): string;
}

/** The WhatsApp templates per language a subject's provider was made with. */
export interface ContractWhatsAppTemplates {
  /** A locale with a template of its own: the suite sends a WhatsApp code in it. */
  readonly locale: string;
  /** The text the phone must show for `code` sent in `locale`. */
  text(code: string): string;
  /** A locale with no template (nor its language): the default template goes. */
  readonly otherLocale: string;
  /** The default template's text for `code`. */
  defaultText(code: string): string;
}

/** What the template tests read of the subject (`ContractSubject` has it all). */
interface TemplateSubject {
  readonly provider: ProviderV1;
  lastCode(phoneNumber: string): string | undefined | Promise<string | undefined>;
  lastMessage(phoneNumber: string): string | undefined | Promise<string | undefined>;
  readonly localized?: ContractTemplate;
  readonly whatsappTemplates?: ContractWhatsAppTemplates;
}

/**
 * The templates' contract: a code sent in a template's locale arrives in its text, and a WhatsApp code in the
 * approved template of its locale, else the default one. Each is skipped, saying why, for a provider without them.
 */
export function templatesContract(subject: () => TemplateSubject): void {
  it("templates: a code sent in the template's locale arrives in the template's text", async (test) => {
    if (subject().provider.phone === undefined) return test.skip('the provider has no phone capability');
    const localized = subject().localized;
    if (localized === undefined)
      return test.skip('the provider takes no message templates: its service writes the text');
    const phoneNumber = freshPhoneNumber();
    await subject().provider.phone!.send(
      { phoneNumber, channel: localized.channel, from: 'Verikit', locale: localized.locale },
      context(),
    );
    const code = (await subject().lastCode(phoneNumber))!;
    expect(await subject().lastMessage(phoneNumber)).toBe(localized.text(code));
  });
  it("templates: a WhatsApp code sent in a locale arrives in that locale's approved template, else the default", async (test) => {
    const templates = subject().whatsappTemplates;
    if (subject().provider.phone?.channels.includes('whatsapp') !== true)
      return test.skip('the provider has no whatsapp channel');
    if (templates === undefined)
      return test.skip('the provider takes no WhatsApp templates per language: its service writes the message');
    for (const [locale, text] of [
      [templates.locale, templates.text],
      [templates.otherLocale, templates.defaultText],
    ] as const) {
      const phoneNumber = freshPhoneNumber();
      const { requestId } = await subject().provider.phone!.send(
        { phoneNumber, channel: 'whatsapp', locale },
        context(),
      );
      const code = (await subject().lastCode(phoneNumber))!;
      expect(await subject().lastMessage(phoneNumber)).toBe(text(code));
      await expect(subject().provider.phone!.check({ requestId, code }, context())).resolves.toEqual({ valid: true });
    }
  });
}
