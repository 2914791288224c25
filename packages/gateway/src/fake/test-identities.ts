/** An identity the fake knows: an OTP sent for it goes to `phoneNumber`. */
export interface TestIdentity {
  /** Which register the number belongs to. */
  readonly idType: 'bvn' | 'nin';
  /** The BVN or NIN, 11 digits: made up, for tests only. */
  readonly number: string;
  /** The phone registered for it: where the OTP goes. */
  readonly phoneNumber: string;
  /** A made-up holder name, for demos. */
  readonly name: string;
}

/** The default registry of test identities. Any other BVN/NIN is unknown: the service answers "Error sending OTP". */
export const defaultTestIdentities: readonly TestIdentity[] = Object.freeze([
  { idType: 'bvn', number: '22222222222', phoneNumber: '+2348030000101', name: 'Ada Obi' },
  { idType: 'bvn', number: '22222222223', phoneNumber: '+2348030000102', name: 'Bayo Adeyemi' },
  { idType: 'nin', number: '11111111111', phoneNumber: '+2348030000103', name: 'Chioma Eze' },
  { idType: 'nin', number: '11111111112', phoneNumber: '+2348030000104', name: 'Dayo Musa' },
]);
