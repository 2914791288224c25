import {
  contractErrors as errors,
  contractIdentities as identities,
  randomCode as code,
} from './contract-errors.fixtures.js';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import { runProviderContract, type ContractOperation } from '@verikit/testing/contract';
import { composeProviders } from './compose-providers.js';

runProviderContract('composed provider (three test doubles, one per group of capabilities)', async () => {
  const phones = createTestProviderV1({
    name: 'phones',
    phoneCode: code,
    channels: ['sms', 'voice', 'whatsapp'],
    customCode: true,
  });
  const messages = createTestProviderV1({ name: 'messages' });
  const service = createTestProviderV1({
    name: 'service',
    identities: {
      [identities.bvn.number]: identities.bvn.phoneNumber,
      [identities.nin.number]: identities.nin.phoneNumber,
    },
  });
  const provider = composeProviders({
    phone: phones,
    sms: messages,
    whatsapp: messages,
    ussd: service,
    identity: service,
  });
  const owner: Record<ContractOperation, TestProviderV1> = {
    'phone.send': phones,
    'sms.send': messages,
    'whatsapp.send': messages,
    'ussd.initiate': service,
    'identity.sendOtp': service,
  };
  const all = [phones, messages, service];
  return {
    provider,
    identities,
    lastCode: (phoneNumber) => all.map((each) => each.lastCode(phoneNumber)).find((found) => found !== undefined),
    lastMessage: (phoneNumber) => messages.outbox.filter((message) => message.to === phoneNumber).at(-1)?.text,
    fail(operation, failure) {
      owner[operation].failNext(operation, errors[failure]());
      return {};
    },
    completeUssd: (phoneNumber, _otp, status) => service.completeUssd(phoneNumber, status),
  };
});
