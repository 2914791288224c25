import { ProviderAuthenticationError, ProviderProtocolError, ProviderRejectedError, ProviderUnavailableError, type VerikitError } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import { runProviderContract, type ContractFailure } from '@verikit/testing/contract';
import { createPostingProvider } from './http-provider.fixtures.js';
import { closedPort } from './network.fixtures.js';
import { withFailover } from './with-failover.js';

const identities = { bvn: { number: '22222222222', phoneNumber: '+2348030000101' }, nin: { number: '11111111111', phoneNumber: '+2348030000103' } };
const errors: Record<ContractFailure, () => VerikitError> = {
  rejected: () => new ProviderRejectedError('refused'),
  unavailable: () => new ProviderUnavailableError('down'),
  authentication: () => new ProviderAuthenticationError(),
  protocol: () => new ProviderProtocolError('no otp', { field: 'data.otp' }),
};

// Every call first meets a provider whose port refuses connections, then fails over to the double: the
// whole contract runs through the failover path. The double's scripted failures are not failed over
// (there is no third member), so each reaches the caller with its own type.
runProviderContract('failover provider (refused connection → test double)', async () => {
  const code = () => String(100000 + Math.floor(Math.random() * 900000));
  const second = createTestProviderV1({
    name: 'second',
    phoneCode: code,
    identities: { [identities.bvn.number]: identities.bvn.phoneNumber, [identities.nin.number]: identities.nin.phoneNumber },
  });
  const provider = withFailover([createPostingProvider('first', `http://127.0.0.1:${await closedPort()}`), second]);
  return {
    provider,
    identities,
    lastCode: (phoneNumber) => second.lastCode(phoneNumber),
    lastMessage: (phoneNumber) => second.outbox.filter((message) => message.to === phoneNumber).at(-1)?.text,
    fail(operation, failure) {
      second.failNext(operation, errors[failure]());
      return {};
    },
    completeUssd: (phoneNumber, _otp, status) => second.completeUssd(phoneNumber, status),
  };
});
