import {
  contractFailureBehaviours,
  failByMagicNumber,
  runProviderContract,
  startWebhookInbox,
} from '@verikit/testing/contract';
import { createTwilioProvider } from './create-twilio-provider.js';
import { startTwilioFake, twilioMagicNumbers } from './fake/index.js';

runProviderContract('twilio over its fake', async () => {
  // A template whose whole text is its variable, so the contract's message arrives as sent; and a French one.
  const contentSid = `HX${'c'.repeat(32)}`;
  const french = `HX${'f'.repeat(32)}`;
  const fake = await startTwilioFake({
    contentTemplates: { [contentSid]: '{{1}}', [french]: { text: 'Votre code : {{1}}', language: 'fr' } },
    statusDelayMs: 0,
  });
  // Receipts only: a `sent` callback is a status on the way.
  const inbox = await startWebhookInbox((webhook) => /MessageStatus=(delivered|undelivered|failed)/.test(webhook.body));
  const provider = createTwilioProvider({
    ...fake.settings,
    from: '+15005550006',
    whatsappFrom: '+14155238886',
    whatsappContentSid: contentSid,
    whatsappContentSids: { fr: french },
    // WhatsApp codes from our own sender, so that their status callbacks reach the flow.
    whatsappCodes: 'messaging',
    statusCallbackUrl: inbox.url,
    customCode: true,
    timeout: 5000,
  });
  return {
    provider,
    lastCode: (phoneNumber) => fake.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => fake.lastMessage(phoneNumber),
    fail: failByMagicNumber(twilioMagicNumbers, contractFailureBehaviours),
    deliveryReports: { channel: 'whatsapp', next: () => inbox.next() },
    whatsappTemplates: {
      locale: 'fr-BE',
      text: (code) => `Votre code : ${code}`,
      otherLocale: 'yo',
      defaultText: (code) => code,
    },
    cleanup: async () => {
      await fake.close();
      await inbox.close();
    },
  };
});
