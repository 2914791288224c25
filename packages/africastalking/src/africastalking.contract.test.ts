import { runProviderContract, type ContractFailure } from '@verikit/testing/contract';
import { createAfricasTalkingProvider } from './create-africastalking-provider.js';
import {
  africasTalkingMagicNumbers,
  startAfricasTalkingFake,
  type AfricasTalkingMagicBehaviour,
} from './fake/index.js';

const behaviour: Record<ContractFailure, AfricasTalkingMagicBehaviour> = {
  rejected: 'invalid-number',
  unavailable: 'server-error',
  authentication: 'unauthorized',
  protocol: 'not-json',
};
const magic = (wanted: AfricasTalkingMagicBehaviour) =>
  Object.entries(africasTalkingMagicNumbers).find(([, value]) => value === wanted)![0];

// Africa's Talking has SMS only: the suite skips the phone, USSD OTP, identity and WhatsApp cases and checks
// that each of those capabilities is absent (so the engine refuses such flows at start).
runProviderContract('africastalking over its fake', async () => {
  const fake = await startAfricasTalkingFake();
  const provider = createAfricasTalkingProvider({ ...fake.settings, timeout: 5000 });
  return {
    provider,
    lastCode: (phoneNumber) => fake.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => fake.lastMessage(phoneNumber),
    fail: (_operation, failure) => ({ phoneNumber: magic(behaviour[failure]) }),
    cleanup: () => fake.close(),
  };
});
