import { defaultFakePeople } from '@verikit/provider-utils/fake';
import { runIdentityStepsContract } from '@verikit/testing/contract';
import { startSmileIdFake } from './fake/index.js';
import { createSmileIdProvider } from './index.js';

const same = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const known = defaultFakePeople[0]!;

runIdentityStepsContract('smile-id', async () => {
  const fake = await startSmileIdFake({ people: [{ ...known, face: same }, ...defaultFakePeople.slice(1)] });
  return {
    provider: createSmileIdProvider({
      partnerId: fake.partnerId,
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      callbackUrl: 'http://127.0.0.1/callback',
      pollMs: 0,
    }),
    known: {
      number: known.number,
      claims: { firstName: known.firstName, lastName: known.lastName, dateOfBirth: known.dateOfBirth },
    },
    unknown: '99999999999',
    others: defaultFakePeople
      .filter((person) => person.number !== known.number && person.consent === undefined)
      .map(({ number, firstName, lastName, dateOfBirth }) => ({
        idType: 'nin' as const,
        number,
        claims: { firstName, lastName, dateOfBirth },
      })),
    selfies: { same, other: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9]) },
    close: () => fake.close(),
  };
});
