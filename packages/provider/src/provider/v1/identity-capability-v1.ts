import type { ProviderCallContextV1 } from './provider-call-context-v1.js';

/** The identity numbers verikit can verify. */
export type IdentityType = 'bvn' | 'nin';

/** Deliver an OTP the engine generated to the phone registered for an identity number. */
export interface IdentitySendOtpInputV1 {
  /** Which register `number` belongs to. */
  readonly idType: IdentityType;
  /**
   * The full BVN/NIN: 11 digits, or for a NIN on a provider that declares `virtualNin`, a 16-character virtual NIN.
   * Held in memory only for the call.
   */
  readonly number: string;
  /** The OTP the engine generated: a string of digits. */
  readonly otp: string;
}

/** BVN/NIN: the provider delivers our OTP to the phone registered for the number. */
export interface IdentityCapabilityV1 {
  /** The identity numbers this provider can reach a phone for. */
  readonly types: readonly IdentityType[];
  /** True when `sendOtp` takes a 16-character virtual NIN (vNIN) for a NIN. Absent means false. */
  readonly virtualNin?: boolean;
  /** Delivers the OTP; resolves once the provider accepted it. Checking the code is the engine's job. */
  sendOtp(input: IdentitySendOtpInputV1, context: ProviderCallContextV1): Promise<void>;
}
