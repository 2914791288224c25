import type { User } from 'better-auth';

/** A user as the plugin stores it: Better Auth's user with the verified phone number. */
export interface UserWithPhoneNumber extends User {
  /** The number verified through verikit, E.164. */
  phoneNumber: string;
  /** True once a proof for the number was redeemed. */
  phoneNumberVerified: boolean;
}

/** What the plugin keeps of a verified BVN or NIN: never the number, only its last four digits and keyed hash. */
export interface IdentityVerificationRecord {
  /** The record's id. */
  id: string;
  /** Whose identity it is. */
  userId: string;
  /** `bvn` or `nin`. */
  idType: 'bvn' | 'nin';
  /** The number masked as verikit's views show it, `*******5678`. */
  numberMasked: string;
  /** verikit's keyed hash of the number (HMAC-SHA256 under the engine secret). */
  numberHash: string;
  /** The provider that delivered the code. */
  provider: string;
  /** When the flow verified. */
  verifiedAt: Date;
}
