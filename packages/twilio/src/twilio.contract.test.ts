import { runProviderContract, type ContractFailure } from '@verikit/testing/contract';
import { createTwilioProvider } from './create-twilio-provider.js';
import { startTwilioFake, twilioMagicNumbers, type TwilioMagicBehaviour } from './fake/index.js';

const behaviour: Record<ContractFailure, TwilioMagicBehaviour> = {
  rejected: 'rejected',
  unavailable: 'server-error',
  authentication: 'unauthorized',
  protocol: 'not-json',
};
const magic = (wanted: TwilioMagicBehaviour) =>
  Object.entries(twilioMagicNumbers).find(([, value]) => value === wanted)![0];

runProviderContract('twilio over its fake', async () => {
  const fake = await startTwilioFake();
  const provider = createTwilioProvider({
    ...fake.settings,
    from: '+15005550006',
    whatsappFrom: '+14155238886',
    customCode: true,
    timeout: 5000,
  });
  return {
    provider,
    lastCode: (phoneNumber) => fake.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => fake.lastMessage(phoneNumber),
    fail: (_operation, failure) => ({ phoneNumber: magic(behaviour[failure]) }),
    cleanup: () => fake.close(),
  };
});
