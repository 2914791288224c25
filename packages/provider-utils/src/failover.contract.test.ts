import {
  contractErrors as errors,
  contractIdentities as identities,
  randomCode as code,
} from './contract-errors.fixtures.js';
import { createTestProviderV1 } from '@verikit/testing';
import { runProviderContract } from '@verikit/testing/contract';
import { createPostingProvider } from './http-provider.fixtures.js';
import { closedPort } from './network.fixtures.js';
import { withFailover } from './with-failover.js';

// Every call first meets a provider whose port refuses connections, then fails over to the double: the
// whole contract runs through the failover path. The double's scripted failures are not failed over
// (there is no third member), so each reaches the caller with its own type. The breakers are off: with
// them the refusing member would leave rotation after five calls (failover-outage.test.ts covers that)
// and the contract's scripted outages of the double would open its circuit too.
runProviderContract('failover provider (refused connection → test double)', async () => {
  const second = createTestProviderV1({
    name: 'second',
    phoneCode: code,
    identities: {
      [identities.bvn.number]: identities.bvn.phoneNumber,
      [identities.nin.number]: identities.nin.phoneNumber,
    },
  });
  const provider = withFailover([createPostingProvider('first', `http://127.0.0.1:${await closedPort()}`), second], {
    breaker: false,
  });
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
