import {
  ProviderAuthenticationError,
  ProviderProtocolError,
  ProviderRejectedError,
  ProviderUnavailableError,
  type VerikitError,
} from '@verikit/provider';
import { createTestProviderV1 } from '../test-provider-v1.js';
import { runProviderContract, type ContractFailure } from './provider-contract.js';

const identities = {
  bvn: { number: '22222222222', phoneNumber: '+2348030000101' },
  nin: { number: '11111111111', phoneNumber: '+2348030000103' },
};

const errors: Record<ContractFailure, () => VerikitError> = {
  rejected: () => new ProviderRejectedError('refused', { providerMessage: 'Error sending message' }),
  unavailable: () => new ProviderUnavailableError('down'),
  authentication: () => new ProviderAuthenticationError(),
  protocol: () => new ProviderProtocolError('no otp', { field: 'data.otp' }),
};

runProviderContract('test double', async () => {
  const provider = createTestProviderV1({
    identities: {
      [identities.bvn.number]: identities.bvn.phoneNumber,
      [identities.nin.number]: identities.nin.phoneNumber,
    },
    phoneCode: () => String(100000 + Math.floor(Math.random() * 900000)),
  });
  return {
    provider,
    identities,
    lastCode: (phoneNumber) => provider.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => provider.outbox.filter((message) => message.to === phoneNumber).at(-1)?.text,
    fail(operation, failure) {
      provider.failNext(operation, errors[failure]());
      return {};
    },
    async completeUssd(phoneNumber, _otp, status) {
      return provider.completeUssd(phoneNumber, status);
    },
  };
});
