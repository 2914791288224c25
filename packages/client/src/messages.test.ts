import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { phoneNumberMessageIds } from '@verikit/provider';
import { createFlowClient } from './create-flow-client.js';
import { FlowClientError } from './errors/flow-client-error.js';
import {
  defaultCatalogues,
  englishMessages,
  errorMessage,
  formatMessage,
  frenchMessages,
  messages,
} from './messages.js';

describe('messages: the catalogue people read', () => {
  it('has the same ids in English and French, every one with text', () => {
    expect(Object.keys(messages.fr!).sort()).toEqual(Object.keys(messages.en!).sort());
    for (const catalogue of Object.values(messages))
      for (const text of Object.values(catalogue)) expect(text).not.toBe('');
  });

  it('ships English alone by default: French only where a page gives its catalogue (what reaches a bundle)', () => {
    expect(defaultCatalogues).toEqual({ en: englishMessages });
    expect(messages).toEqual({ en: englishMessages, fr: frenchMessages });
    // No catalogues given: English, whatever the locale.
    expect(formatMessage('verikit.code.label', { locale: 'fr' })).toBe('Verification code');
    expect(formatMessage('verikit.code.label', { locale: 'fr', catalogues: { fr: frenchMessages } })).toBe(
      'Code de vérification',
    );
  });

  it("has English and French text for every problem the server names in a phone number (the provider's ids)", () => {
    for (const id of phoneNumberMessageIds) {
      expect(messages.en![id], id).toBeDefined();
      expect(messages.fr![id], id).toBeDefined();
    }
  });

  it('is the catalogue docs/ui.md shows, row for row', () => {
    const page = readFileSync(new URL('../../../docs/ui.md', import.meta.url), 'utf8');
    const table = page.slice(page.indexOf('| id | `en` | `fr` |'), page.indexOf('</details>'));
    const rows = [...table.matchAll(/^\| `(verikit\.[^`]+)` \| (.*) \| (.*) \|$/gm)].map((row) => [
      row[1],
      row[2],
      row[3],
    ]);
    const expected = Object.keys(messages.en!).map((id) => [id, messages.en![id], messages.fr![id]]);
    expect(rows).toEqual(expected);
  });

  it('looks up the locale, then its language, then English; fills placeholders', () => {
    expect(
      formatMessage('verikit.code.digit', { locale: 'fr-FR', catalogues: messages, params: { index: 2, length: 6 } }),
    ).toBe('Chiffre 2 sur 6');
    expect(formatMessage('verikit.code.digit', { locale: 'yo', params: { index: 1, length: 4 } })).toBe('Digit 1 of 4');
    const catalogues = { ...messages, fr: { ...messages.fr, 'verikit.code.label': 'Code reçu' } };
    expect(formatMessage('verikit.code.label', { locale: 'fr', catalogues })).toBe('Code reçu');
  });

  it("plurals follow the language's rules (Intl.PluralRules): one, few, many, other; other, then the id itself, as fallbacks", () => {
    const catalogues = {
      en: { 'page.tries': '{count} tries', 'page.tries.one': '{count} try', 'page.tries.other': '{count} tries' },
      fr: { 'page.tries.one': '{count} essai', 'page.tries.other': '{count} essais' },
      pl: { 'page.tries.one': '{count} próba', 'page.tries.few': '{count} próby', 'page.tries.many': '{count} prób' },
    };
    const tries = (locale: string, count: number) =>
      formatMessage('page.tries', { locale, catalogues, params: { count } });
    expect([0, 1, 2].map((count) => tries('en', count))).toEqual(['0 tries', '1 try', '2 tries']);
    // French: 0 and 1 are singular.
    expect([0, 1, 2].map((count) => tries('fr', count))).toEqual(['0 essai', '1 essai', '2 essais']);
    // Polish: one, few (2–4, 22–24), many (5–21).
    expect([1, 3, 5, 22].map((count) => tries('pl', count))).toEqual(['1 próba', '3 próby', '5 prób', '22 próby']);
    // No plural forms: the id itself; a count that is not a number picks no form.
    expect(formatMessage('verikit.code.digit', { params: { count: 2, index: 1, length: 6 } })).toBe('Digit 1 of 6');
    expect(formatMessage('page.tries', { locale: 'en', catalogues, params: { count: '1' } })).toBe('1 tries');
  });

  it('an id no catalogue lists falls back to its parent, an unknown error to the generic message, never to developer text', () => {
    expect(formatMessage('verikit.error.phone_number.some_new_problem', { locale: 'fr', catalogues: messages })).toBe(
      messages.fr!['verikit.error.phone_number'],
    );
    expect(formatMessage('verikit.error.custom_provider_code')).toBe('Something went wrong.');
    const developerText = 'gateway phone.send: the service is unavailable (HTTP 500)';
    const error = new FlowClientError('provider_unavailable', developerText, {
      messageId: 'verikit.error.provider_unavailable',
    });
    expect(errorMessage(error, { locale: 'fr', catalogues: messages })).toBe(
      'Le service est indisponible. Réessayez dans un instant.',
    );
    expect(errorMessage({ code: 'flow_not_found' })).toBe('This verification has ended. Start again.');
  });

  it("the client's own errors carry a messageId: network_error, bad_response, invalid_input", async () => {
    const offline = createFlowClient({
      baseUrl: '/api/verify',
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    await expect(offline.get('abc')).rejects.toMatchObject({ messageId: 'verikit.error.network_error' });
    const proxy = createFlowClient({
      baseUrl: '/api/verify',
      fetch: () => Promise.resolve(new Response('<html>502</html>', { status: 502 })),
    });
    await expect(proxy.get('abc')).rejects.toMatchObject({ messageId: 'verikit.error.bad_response' });
    await expect(proxy.get('not an id')).rejects.toMatchObject({ messageId: 'verikit.error.invalid_input' });
  });
});
