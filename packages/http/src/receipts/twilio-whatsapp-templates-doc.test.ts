import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createVerikit } from '@verikit/core';
import { createTwilioProvider } from '@verikit/twilio';
import { startTwilioFake } from '@verikit/twilio/fake';

// docs/providers/twilio.md ("One template per language"): the snippet as written, against the fake, from the
// environment the page names.

const page = readFileSync(new URL('../../../../docs/providers/twilio.md', import.meta.url), 'utf8');
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The snippet of the page; returns the flow it started and the engine. */
async function documented() {
  // snippet:start
  // TWILIO_WHATSAPP_CONTENT_SID is the English template; French and Brazilian Portuguese have their own.
  const provider = createTwilioProvider({
    whatsappCodes: 'messaging',
    whatsappContentSids: { fr: 'HX11111111111111111111111111111111', 'pt-BR': 'HX22222222222222222222222222222222' },
  });
  const verikit = createVerikit({ provider, secret: process.env.VERIKIT_SECRET! });
  const flow = await verikit.start({
    kind: 'phone',
    phoneNumber: '+2348012345678',
    channel: 'whatsapp',
    locale: 'fr-CA',
  });
  // the code goes as the French template (fr-CA has none of its own); with locale 'yo', as the default
  // snippet:end
  return { flow, verikit };
}

describe('docs/providers/twilio.md: one WhatsApp template per language', () => {
  it('shows the snippet this test runs', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const start = source.indexOf('// snippet:start\n') + 17;
    const snippet = source.slice(start, source.indexOf('  // snippet:end')).replace(/^ {2}/gm, '');
    expect(page).toContain(snippet.trim());
  });

  it('the code reaches the phone in the French template, and checks', async () => {
    const fake = await startTwilioFake({
      contentTemplates: {
        HXeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee: '{{1}} is your verification code.',
        HX11111111111111111111111111111111: { text: '{{1}} est votre code de vérification.', language: 'fr' },
        HX22222222222222222222222222222222: { text: '{{1}} é o seu código.', language: 'pt_BR' },
      },
    });
    try {
      vi.stubEnv('TWILIO_ACCOUNT_SID', fake.settings.accountSid);
      vi.stubEnv('TWILIO_AUTH_TOKEN', fake.settings.authToken);
      vi.stubEnv('TWILIO_API_BASE_URL', fake.settings.apiBaseUrl);
      vi.stubEnv('TWILIO_WHATSAPP_FROM', '+14155238886');
      vi.stubEnv('TWILIO_WHATSAPP_CONTENT_SID', 'HXeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee');
      vi.stubEnv('VERIKIT_SECRET', 'a-documented-secret-of-32-characters!');
      const { flow, verikit } = await documented();
      expect(flow.status).toBe('awaiting-code');
      const message = fake.outbox.at(-1)!;
      expect(message).toMatchObject({ channel: 'whatsapp', language: 'fr' });
      expect(message.text).toBe(`${message.code} est votre code de vérification.`);
      const result = await verikit.send(flow.id, { type: 'submit-code', code: message.code! });
      expect(result.status).toBe('verified');
    } finally {
      await fake.close();
    }
  });
});
