import { z } from 'zod';
import {
  identityNumberSchema,
  InvalidInputError,
  parseInput,
  phoneNumberSchema,
  type IdentityStep,
} from '@verikit/provider';
import { onFirstUse } from '../inputs/inputs.js';
import { proofTokenPattern } from './proof-token.js';
import type { VerificationMethod } from './verification.js';

/** Every method a proof can name. */
const verificationMethods = [
  'phone',
  'ussd',
  'identity',
  'dial-in',
  'dial-in-identify',
  'sms-inbound',
  'whatsapp-inbound',
] as const satisfies readonly VerificationMethod[];

/** The longest proof token taken: far above any this engine issues. */
const maxTokenLength = 2200;

/** The most proofs one claim set redeems. */
const maxClaimSet = 10;

/** Longest and shortest lives of a proof: long enough to finish a signup form, short enough to be worth little if leaked. */
export const defaultProofTtlMs = 5 * 60_000;
const maxProofTtlMs = 60 * 60_000;
const minProofTtlMs = 1000;

const schemas = onFirstUse(() => ({
  token: z
    .string({ error: 'must be a string' })
    .max(maxTokenLength, { error: 'is too long to be a proof', abort: true })
    .regex(proofTokenPattern, { error: 'is not a proof token' }),
  phoneClaim: z.strictObject({ phoneNumber: phoneNumberSchema }),
  identityClaim: z.strictObject({
    idType: z.enum(['bvn', 'nin'], { error: 'must be bvn or nin' }),
    number: identityNumberSchema,
  }),
  redeemOptions: z.strictObject({
    methods: z
      .array(z.enum(verificationMethods, { error: `must be one of ${verificationMethods.join(', ')}` }), {
        error: 'must be a list of verification methods',
      })
      .max(verificationMethods.length)
      .readonly()
      .optional(),
    steps: z
      .array(z.enum(['match', 'consent', 'otp', 'face'], { error: 'must be match, consent, otp or face' }), {
        error: 'must be a list of identity steps',
      })
      .max(4)
      .readonly()
      .optional(),
  }),
  issueOptions: z.strictObject({
    ttlMs: z
      .number({ error: 'must be a number of milliseconds' })
      .int({ error: 'must be a whole number of milliseconds' })
      .min(minProofTtlMs, { error: `must be at least ${minProofTtlMs} ms` })
      .max(maxProofTtlMs, { error: `must be at most ${maxProofTtlMs} ms (1 hour)` })
      .optional(),
  }),
}));

/** What the signup endpoint says the user verified: the phone number, or the identity number and its type. */
export type ProofClaim =
  | {
      /** The number the user claims, in E.164 (phone and USSD flows). */
      readonly phoneNumber: string;
    }
  | {
      /** Which identity number is claimed (identity flows). */
      readonly idType: 'bvn' | 'nin';
      /** The BVN or NIN claimed, 11 digits: compared by its keyed hash. */
      readonly number: string;
    };

/** Options of `issueProof`. */
export interface IssueProofOptions {
  /** How long the proof lives, in ms. Default 5 minutes, at most 1 hour. */
  ttlMs?: number;
}

/** A well-formed token (`InvalidInputError` on `token` otherwise); whether it is genuine is checked later. */
function parseProofToken(token: unknown, field: string): string {
  return parseInput(schemas().token, token, field);
}

/** A claim with a phone number, or with an identity type and number (`InvalidInputError` on `claim.*` otherwise). */
function parseProofClaim(claim: unknown, field: string): ProofClaim {
  const isPhone = typeof claim === 'object' && claim !== null && Object.hasOwn(claim, 'phoneNumber');
  return isPhone ? parseInput(schemas().phoneClaim, claim, field) : parseInput(schemas().identityClaim, claim, field);
}

/** The proofs of a claim set: 1 to 10 `{ token, claim }`, each checked as `redeemProof` checks its arguments. */
export function parseRedeemItems(items: unknown, single = false): { token: string; claim: ProofClaim }[] {
  if (!Array.isArray(items) || items.length === 0 || items.length > maxClaimSet) {
    throw new InvalidInputError([
      { field: 'proofs', message: `must be a list of 1 to ${maxClaimSet} { token, claim }` },
    ]);
  }
  return items.map((item: unknown, index) => {
    const { token, claim } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const prefix = single ? '' : `proofs.${index}.`;
    return { token: parseProofToken(token, `${prefix}token`), claim: parseProofClaim(claim, `${prefix}claim`) };
  });
}

/** Options of `redeemProof` and `redeemProofs`. */
export interface RedeemProofOptions {
  /**
   * The methods of verification this endpoint accepts; a proof of any other is refused (`reason: 'method'`), unused.
   * Default: every method but `dial-in-identify` (a "who is this" dial-in: it names whoever dialled, so only an app
   * that meant to accept that names it) and `sms-inbound` (an SMS sender number can be forged on some routes).
   */
  methods?: readonly VerificationMethod[];
  /**
   * Identity steps the flow must have passed (`['match', 'face']`): a proof of any other flow is refused
   * (`reason: 'steps'`), unused. An identity flow without a ladder passed `otp` alone.
   */
  steps?: readonly IdentityStep[];
}

/** Checks the options of `redeemProof` and `redeemProofs`. */
export function parseRedeemOptions(options: unknown): RedeemProofOptions {
  return parseInput(schemas().redeemOptions, options ?? {}, 'options');
}

/** Checks the options of `issueProof`. */
export function parseIssueOptions(options: unknown): IssueProofOptions {
  return parseInput(schemas().issueOptions, options ?? {}, 'options');
}
