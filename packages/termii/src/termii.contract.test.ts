import {
  contractFailureBehaviours,
  failByMagicNumber,
  runProviderContract,
  startWebhookInbox,
} from '@verikit/testing/contract';
import { createTermiiProvider } from './create-termii-provider.js';
import { startTermiiFake, termiiMagicNumbers } from './fake/index.js';

runProviderContract('termii over its fake', async () => {
  const inbox = await startWebhookInbox();
  const fake = await startTermiiFake({
    deliveryReports: { url: inbox.url, secretKey: 'contract-secret-key', delayMs: 0 },
  });
  const provider = createTermiiProvider({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    senderId: 'Verikit',
    timeout: 5000,
    messageTemplates: { fr: { sms: 'Votre code Verikit : < 1234 >' } },
  });
  return {
    provider,
    lastCode: (phoneNumber) => fake.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => fake.lastMessage(phoneNumber),
    fail: failByMagicNumber(termiiMagicNumbers, contractFailureBehaviours),
    localized: { locale: 'fr', channel: 'sms', text: (code) => `Votre code Verikit : ${code}` },
    // Termii reports voice codes (Voice Token names the message_id its reports carry); Send Token names none.
    deliveryReports: { channel: 'voice', next: () => inbox.next() },
    cleanup: async () => {
      await fake.close();
      await inbox.close();
    },
  };
});
