import { InvalidInputError, silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { failureOf, freshPhoneNumber } from '@verikit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTwilioProvider } from './create-twilio-provider.js';
import { startTwilioFake, type TwilioFake } from './fake/index.js';
import type { TwilioProviderSettings } from './twilio-settings.js';

const context = (): ProviderCallContextV1 => ({
  signal: new AbortController().signal,
  idempotencyKey: 'flow:effect:1',
  logger: silentLogger,
});
const sid = (letter: string) => `HX${letter.repeat(32)}`;
// One approved template per language, as WhatsApp approves them; German is submitted but not approved yet.
const templates = {
  [sid('e')]: { text: '{{1}} is your code.', language: 'en' },
  [sid('f')]: { text: '{{1}} est votre code.', language: 'fr' },
  [sid('b')]: { text: '{{1}} é o seu código.', language: 'pt_BR' },
  [sid('d')]: { text: '{{1}} ist Ihr Code.', language: 'de', approved: false },
};
const perLocale = { fr: sid('f'), 'pt-BR': sid('b'), de: sid('d') };

let fake: TwilioFake;
const wire: Array<Record<string, string>> = [];
const recordingFetch: typeof fetch = (input, init) => {
  wire.push(Object.fromEntries(new URLSearchParams(String(init?.body))));
  return fetch(input, init);
};
beforeAll(async () => {
  fake = await startTwilioFake({ contentTemplates: templates, statusDelayMs: 1 });
});
afterAll(() => fake.close());
beforeEach(() => {
  wire.length = 0;
});

const twilio = (overrides: Partial<TwilioProviderSettings> = {}) =>
  createTwilioProvider({
    ...fake.settings,
    whatsappFrom: '+14155238886',
    whatsappCodes: 'messaging',
    whatsappContentSid: sid('e'),
    whatsappContentSids: perLocale,
    fetch: recordingFetch,
    ...overrides,
  });
/** Sends a WhatsApp code in `locale`; returns the ContentSid on the wire, what reached the phone, the message SID. */
async function codeIn(locale: string | undefined, provider = twilio()) {
  const phoneNumber = freshPhoneNumber();
  const sent = await provider.phone!.send(
    { phoneNumber, channel: 'whatsapp', ...(locale ? { locale } : {}) },
    context(),
  );
  await fake.messagesSettled();
  const delivered = fake.outbox.findLast((message) => message.to === phoneNumber);
  return { contentSid: wire.at(-1)!['ContentSid'], delivered, messageId: sent.messageId! };
}
/** The message resource as Twilio answers it (`GET …/Messages/{SM}.json`). */
async function messageResource(messageSid: string): Promise<Record<string, unknown>> {
  const { accountSid, authToken, apiBaseUrl } = fake.settings;
  const response = await fetch(`${apiBaseUrl}/2010-04-01/Accounts/${accountSid}/Messages/${messageSid}.json`, {
    headers: { authorization: `Basic ${btoa(`${accountSid}:${authToken}`)}` },
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('twilio: a WhatsApp code goes in the approved template of the flow’s locale', () => {
  it('exact tag, then its language, then the default; the template’s language reaches the phone', async () => {
    const french = await codeIn('fr-CA');
    expect(french.contentSid).toBe(sid('f'));
    expect(french.delivered).toMatchObject({ language: 'fr', text: `${french.delivered!.code} est votre code.` });
    expect((await codeIn('pt-br')).delivered).toMatchObject({ language: 'pt_BR' });
    // Portugal has no template of its own and `pt` none either: the default, in English.
    expect((await codeIn('pt-PT')).contentSid).toBe(sid('e'));
    expect((await codeIn('yo')).delivered).toMatchObject({ language: 'en' });
    expect((await codeIn(undefined)).contentSid).toBe(sid('e'));
  });

  it('a template WhatsApp has not approved fails outside the 24-hour window (63016), as Twilio does', async () => {
    const german = await codeIn('de');
    expect(german.contentSid).toBe(sid('d'));
    expect(german.delivered).toBeUndefined();
    expect(await messageResource(german.messageId)).toMatchObject({ status: 'failed', error_code: 63016 });
    // Within the window it reaches the user, as free text would.
    const phoneNumber = freshPhoneNumber();
    fake.openWhatsAppWindow(phoneNumber);
    await twilio().phone!.send({ phoneNumber, channel: 'whatsapp', locale: 'de' }, context());
    await fake.messagesSettled();
    expect(fake.outbox.at(-1)).toMatchObject({ to: phoneNumber, language: 'de' });
  });

  it('the locale setting picks the template when a call names none, for codes and messages', async () => {
    const provider = twilio({ locale: 'fr' });
    expect((await codeIn(undefined, provider)).contentSid).toBe(sid('f'));
    const phoneNumber = freshPhoneNumber();
    await provider.whatsapp!.send({ phoneNumber, message: 'Colis expédié' }, context());
    expect(wire.at(-1)).toMatchObject({ ContentSid: sid('f'), ContentVariables: '{"1":"Colis expédié"}' });
  });

  it('no template for the locale and no default: refused before any request, never free text', async () => {
    const provider = twilio({ whatsappContentSid: undefined, whatsappFreeText: true });
    await expect(codeIn('fr', provider)).resolves.toMatchObject({ contentSid: sid('f') });
    const sent = wire.length;
    const error = await failureOf(
      provider.phone!.send({ phoneNumber: freshPhoneNumber(), channel: 'whatsapp', locale: 'yo' }, context()),
    );
    expect(InvalidInputError.isInstance(error) && error.field).toBe('whatsappContentSid');
    expect((error as Error).message).toContain('in yo, which whatsappContentSids has no template for');
    expect(wire.length).toBe(sent);
  });

  it('refuses a key that is not a language tag, or a value that is not a content SID, naming it', () => {
    for (const [whatsappContentSids, field] of [
      [{ french: sid('f') }, 'whatsappContentSids.french'],
      [{ fr: 'HX123' }, 'whatsappContentSids.fr'],
      [['HX'], 'whatsappContentSids'],
    ] as const) {
      let error: unknown;
      try {
        twilio({ whatsappContentSids: whatsappContentSids as never });
      } catch (caught) {
        error = caught;
      }
      expect(InvalidInputError.isInstance(error) && error.field).toBe(field);
    }
  });
});
