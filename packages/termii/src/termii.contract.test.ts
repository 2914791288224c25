import { runProviderContract, type ContractFailure } from '@verikit/testing/contract';
import { createTermiiProvider } from './create-termii-provider.js';
import { startTermiiFake, termiiMagicNumbers, type TermiiMagicBehaviour } from './fake/index.js';

const behaviour: Record<ContractFailure, TermiiMagicBehaviour> = {
  rejected: 'rejected',
  unavailable: 'server-error',
  authentication: 'unauthorized',
  protocol: 'not-json',
};
const magic = (wanted: TermiiMagicBehaviour) =>
  Object.entries(termiiMagicNumbers).find(([, value]) => value === wanted)![0];

runProviderContract('termii over its fake', async () => {
  const fake = await startTermiiFake();
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
    fail: (_operation, failure) => ({ phoneNumber: magic(behaviour[failure]) }),
    localized: { locale: 'fr', channel: 'sms', text: (code) => `Votre code Verikit : ${code}` },
    cleanup: () => fake.close(),
  };
});
