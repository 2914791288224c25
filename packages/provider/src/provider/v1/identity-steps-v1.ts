import type { IdentityType } from './identity-capability-v1.js';
import type { ProviderCallContextV1 } from './provider-call-context-v1.js';

/**
 * The steps an identity flow can climb, in the order the app lists them (docs/flows.md, "The identity ladder"):
 * `match` (what the user claims against the record), `consent` (the vendor's consent step), `otp` (our OTP to the
 * record's phone, `identity.sendOtp`) and `face` (a selfie against the record's photo).
 */
export type IdentityStep = 'match' | 'consent' | 'otp' | 'face';

/** What the user claims about the person behind an identity number. Held in memory only for the call. */
export interface IdentityClaimsV1 {
  /** The first (given) name. */
  readonly firstName?: string;
  /** The last name (surname). */
  readonly lastName?: string;
  /** The date of birth, `YYYY-MM-DD`. */
  readonly dateOfBirth?: string;
  /** The phone number, E.164. */
  readonly phoneNumber?: string;
}

/** The claims a match compares, by name. */
export type IdentityClaimField = keyof IdentityClaimsV1;

/** Match the user's claims against the record behind a BVN, NIN or vNIN. */
export interface IdentityMatchInputV1 {
  /** Which register `number` belongs to. */
  readonly idType: IdentityType;
  /** The full BVN/NIN/vNIN; held in memory only for the call. */
  readonly number: string;
  /** The claims to compare: at least one. */
  readonly claims: IdentityClaimsV1;
}

/**
 * A match's answer: booleans only, never the record's data. `found: false` means the register holds no record for
 * the number (then `fields` is empty).
 */
export interface IdentityMatchResultV1 {
  /** Whether the register holds a record for the number. */
  readonly found: boolean;
  /** One boolean per claim that was compared: true when it agrees with the record. */
  readonly fields: Readonly<Partial<Record<IdentityClaimField, boolean>>>;
  /** The record's phone number masked as the vendor gave it (`0803****567`), when it gives one. */
  readonly phoneMasked?: string;
  /** The provider that answered, when it is a composition (`withFailover`): the member's name. */
  readonly by?: string;
}

/** Ask the vendor for the owner's consent to look the number up. */
export interface IdentityConsentInputV1 {
  /** Which register `number` belongs to. */
  readonly idType: IdentityType;
  /** The full number; held in memory only for the call. */
  readonly number: string;
}

/** Where the user gives consent, and the vendor's reference to ask about it later. */
export interface IdentityConsentRequestV1 {
  /** The vendor's reference of this consent request: holds no identity number. */
  readonly reference: string;
  /** The page the user opens to consent, when the vendor has one (a code sent to the record's phone has none). */
  readonly url?: string;
  /** The provider that answered, when it is a composition: the member's name. */
  readonly by?: string;
}

/** What became of a consent request. */
export interface IdentityConsentStatusV1 {
  /** `granted` and `refused` are final; `pending`: the user has not answered yet. */
  readonly status: 'granted' | 'refused' | 'pending';
  /** The provider that answered, when it is a composition: the member's name. */
  readonly by?: string;
}

/** A selfie to compare with the photo on the record. */
export interface IdentityFaceInputV1 {
  /** Which register `number` belongs to. */
  readonly idType: IdentityType;
  /** The full number; held in memory only for the call. */
  readonly number: string;
  /** The selfie: JPEG or PNG bytes, passed through to the vendor and never kept. */
  readonly image: Uint8Array;
}

/** A face match's answer: booleans only. */
export interface IdentityFaceResultV1 {
  /** Whether the register holds a record (with a photo) for the number. */
  readonly found: boolean;
  /** True when the selfie is the person on the record. */
  readonly match: boolean;
  /** The vendor's liveness verdict on the selfie, where it gives one. */
  readonly live?: boolean;
  /** The provider that answered, when it is a composition: the member's name. */
  readonly by?: string;
}

/**
 * The identity steps a vendor sells besides the OTP (spec v1, additive): each method is there only when the vendor
 * has the step. A flow whose ladder names a step no provider has fails at start with a `CapabilityError`.
 */
export interface IdentityStepsCapabilityV1 {
  /** The identity numbers the steps take. */
  readonly types: readonly IdentityType[];
  /** True when the steps take a 16-character virtual NIN for a NIN. Absent means false. */
  readonly virtualNin?: boolean;
  /** The claims this vendor's match compares; a claim outside them is not sent (and not answered). */
  readonly matchFields?: readonly IdentityClaimField[];
  /** Compares claims with the record. */
  match?(input: IdentityMatchInputV1, context: ProviderCallContextV1): Promise<IdentityMatchResultV1>;
  /** The vendor's consent step: a request, then its outcome by reference. */
  readonly consent?: {
    /** Asks for the owner's consent: a reference, and the page where the user gives it (when there is one). */
    request(input: IdentityConsentInputV1, context: ProviderCallContextV1): Promise<IdentityConsentRequestV1>;
    /** What became of the request `reference` names. */
    status(input: { readonly reference: string }, context: ProviderCallContextV1): Promise<IdentityConsentStatusV1>;
  };
  /** Compares a selfie with the record's photo. */
  face?(input: IdentityFaceInputV1, context: ProviderCallContextV1): Promise<IdentityFaceResultV1>;
}

/** The largest selfie a face step passes on: 2 MiB (vendors take 1–5 MB; a phone camera JPEG at 1080p is ~0.5 MB). */
export const maxSelfieBytes = 2 * 1024 * 1024;
