import {
  contractFailureBehaviours,
  runProviderContract,
  type ContractFailure,
  type ContractOperation,
} from '@verikit/testing/contract';
import { gatewayOver, magicIdentityNumberFor, magicPhoneNumberFor } from './gateway.fixtures.js';
import { startGatewayFake } from './fake/start-gateway-fake.js';
import { verifyGatewayFakeWebhook } from './fake/verify-gateway-fake-webhook.js';
import { startWebhookReceiver } from './webhook-receiver.fixtures.js';

runProviderContract('gateway over the sandbox', async () => {
  const receiver = await startWebhookReceiver();
  const sandbox = await startGatewayFake({ webhookUrl: receiver.url, webhookRetryDelaysMs: [5, 5] });
  const provider = gatewayOver(sandbox);
  return {
    provider,
    identities: {
      bvn: { number: '22222222222', phoneNumber: '+2348030000101' },
      nin: { number: '11111111111', phoneNumber: '+2348030000103' },
    },
    lastCode: (phoneNumber) => sandbox.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => sandbox.outbox.filter((message) => message.to === phoneNumber).at(-1)?.text,
    fail(operation: ContractOperation, failure: ContractFailure) {
      const wanted = contractFailureBehaviours[failure];
      return operation === 'identity.sendOtp'
        ? { number: magicIdentityNumberFor(wanted) }
        : { phoneNumber: magicPhoneNumberFor(wanted) };
    },
    async completeUssd(phoneNumber, otp) {
      const delivery = await sandbox.dialUssd(phoneNumber, { otp });
      if (!delivery.delivered) throw new Error('the webhook was not delivered');
      const webhook = receiver.received.find((each) => each.headers['webhook-id'] === delivery.id)!;
      verifyGatewayFakeWebhook(webhook, sandbox.webhookSecret);
      return provider.webhooks!.parse(webhook);
    },
    async cleanup() {
      await sandbox.close();
      await receiver.close();
    },
  };
});
