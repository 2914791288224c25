import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { RawWebhookV1 } from '@verikit/provider';
import { contractFailureBehaviours, failByMagicNumber, runProviderContract } from '@verikit/testing/contract';
import { createAfricasTalkingProvider } from './create-africastalking-provider.js';
import { africasTalkingMagicNumbers, startAfricasTalkingFake } from './fake/index.js';

// Africa's Talking has SMS and, with a USSD service code, dial-in: the suite skips the phone, USSD OTP, identity
// and WhatsApp cases and checks that each of those capabilities is absent (so the engine refuses such flows at
// start). Dial-in is checked on the session request the fake posts when it dials, as received over HTTP.
const behaviours = { ...contractFailureBehaviours, rejected: 'invalid-number' } as const;

runProviderContract('africastalking over its fake', async () => {
  const fake = await startAfricasTalkingFake();
  const provider = createAfricasTalkingProvider({ ...fake.settings, timeout: 5000 });
  const received: RawWebhookV1[] = [];
  const callback = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    received.push({
      body: Buffer.concat(chunks).toString('utf8'),
      headers: incoming.headers as Record<string, string>,
    });
    outgoing.writeHead(200, { 'content-type': 'text/plain' }).end('END Thank you');
  }).listen(0, '127.0.0.1');
  await once(callback, 'listening');
  fake.setCallbackUrl(`http://127.0.0.1:${(callback.address() as AddressInfo).port}/ussd`);
  return {
    provider,
    lastCode: (phoneNumber) => fake.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => fake.lastMessage(phoneNumber),
    fail: failByMagicNumber(africasTalkingMagicNumbers, behaviours),
    dialIn: {
      async dial(phoneNumber, code) {
        await fake.dial({ phoneNumber, code });
        return received.at(-1)!;
      },
    },
    cleanup: async () => {
      await new Promise((resolve) => callback.close(resolve));
      await fake.close();
    },
  };
});

// Without a service code the provider takes no dial-in flows: the suite skips dial-in, saying so.
runProviderContract('africastalking over its fake, without a USSD service code', async () => {
  const fake = await startAfricasTalkingFake();
  return {
    provider: createAfricasTalkingProvider({ ...fake.settings, ussdServiceCode: undefined, timeout: 5000 }),
    lastCode: (phoneNumber) => fake.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => fake.lastMessage(phoneNumber),
    fail: failByMagicNumber(africasTalkingMagicNumbers, behaviours),
    cleanup: () => fake.close(),
  };
});
