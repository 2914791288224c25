import { runIdentityStepsContract } from '@verikit/testing/contract';
import { dojahSandboxPeople, startDojahFake } from './fake/index.js';
import { createDojahProvider } from './index.js';

// Dojah against its fake, whose register holds the known person with a photo: every step Dojah has (match, face) and
// the ones it lacks (consent, the OTP: a CapabilityError at start), on BVN, NIN and vNIN.
const photo = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 7, 7, 7]);
const [person, ...others] = dojahSandboxPeople;
const nin = others.find((each) => each.number === '70123456789')!;
const vnin = others.find((each) => each.number === 'AB012345678910YZ')!;
const claimsOf = ({ firstName, lastName, dateOfBirth, phoneNumber }: typeof nin) => ({
  firstName,
  lastName,
  dateOfBirth,
  phoneNumber,
});

runIdentityStepsContract('dojah', async () => {
  const fake = await startDojahFake({ people: [{ ...person!, face: photo }, nin, vnin] });
  return {
    provider: createDojahProvider({ appId: fake.appId, secretKey: fake.secretKey, baseUrl: fake.baseUrl }),
    known: { number: person!.number, claims: claimsOf(person!) },
    unknown: '99999999999',
    others: [
      { idType: 'nin', number: nin.number, claims: claimsOf(nin) },
      { idType: 'nin', number: vnin.number, claims: claimsOf(vnin) },
    ],
    selfies: { same: photo, other: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 8]) },
    close: () => fake.close(),
  };
});
