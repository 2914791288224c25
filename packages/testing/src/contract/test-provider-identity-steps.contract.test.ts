import { createTestProviderV1 } from '../test-provider-v1.js';
import { runIdentityStepsContract } from './index.js';

const same = new Uint8Array([0xff, 0xd8, 0xff, 1]);

runIdentityStepsContract('test double', async () => {
  const provider = createTestProviderV1();
  // The double passes every step unless scripted: its register is what the scripts say.
  provider.script('identity.match', { found: true, fields: { firstName: true, lastName: true } });
  provider.script('identity.match', { found: true, fields: { firstName: true, lastName: false } });
  provider.script('identity.match', { found: false, fields: {} });
  provider.script('identity.face', { found: true, match: true, live: true });
  provider.script('identity.face', { found: true, match: false, live: true });
  provider.script('identity.face', { found: false, match: false });
  return {
    provider,
    known: { number: '22222222222', claims: { firstName: 'Adaeze', lastName: 'Okonkwo' } },
    unknown: '99999999999',
    selfies: { same, other: new Uint8Array([0xff, 0xd8, 0xff, 2]) },
  };
});
