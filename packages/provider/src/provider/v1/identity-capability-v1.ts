import { z } from 'zod';
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

/**
 * The OTP of an identity send: a string of 4 to 10 digits, or an integer a JavaScript caller passed, turned into
 * its digits (the gateway service takes both: docs/service.md).
 */
const identityOtpSchema = z.union(
  [
    z
      .string({ error: 'must be a string of 4 to 10 digits' })
      .max(64, { error: 'must be 4 to 10 digits', abort: true })
      .regex(/^\d{4,10}$/, { error: 'must be 4 to 10 digits' }),
    z
      .number({ error: 'must be a string of 4 to 10 digits' })
      .int({ error: 'must be a string of 4 to 10 digits' })
      .min(1000, { error: 'must be 4 to 10 digits' })
      .max(9_999_999_999, { error: 'must be 4 to 10 digits' })
      .transform((value) => String(value)),
  ],
  { error: 'must be a string of 4 to 10 digits' },
);

/**
 * The schema of {@link IdentitySendOtpInputV1}; unknown fields ignored, as for `smsSendInputSchemaV1`. The number's
 * shape is the provider's to check (an 11-digit BVN; a NIN by the provider's rule, or a virtual NIN where it takes
 * one): here it is a string of at most 64 characters.
 */
export const identitySendOtpInputSchemaV1 = z.object({
  /** Which register `number` belongs to. */
  idType: z.literal(['bvn', 'nin'], { error: 'must be bvn or nin' }),
  /** The BVN or NIN. */
  number: z.string({ error: 'must be a string of digits' }).max(64, { error: 'is not a valid identity number' }),
  /** The OTP to deliver. */
  otp: identityOtpSchema,
}) satisfies z.ZodType<IdentitySendOtpInputV1, unknown>;

/** BVN/NIN: the provider delivers our OTP to the phone registered for the number. */
export interface IdentityCapabilityV1 {
  /** The identity numbers this provider can reach a phone for. */
  readonly types: readonly IdentityType[];
  /** True when `sendOtp` takes a 16-character virtual NIN (vNIN) for a NIN. Absent means false. */
  readonly virtualNin?: boolean;
  /** Delivers the OTP; resolves once the provider accepted it. Checking the code is the engine's job. */
  sendOtp(input: IdentitySendOtpInputV1, context: ProviderCallContextV1): Promise<void>;
}
