/** An identity number a provider under test knows, and the phone its OTP goes to (where the suite reads it back). */
export interface ContractIdentity {
  /** The BVN or NIN: 11 digits. */
  readonly number: string;
  /** The phone registered for it, in E.164. */
  readonly phoneNumber: string;
}
