import { z } from 'zod';
import { onFirstUse } from '../inputs/inputs.js';
import type { SecretBox } from '../secrets/secrets.js';
import type { PassedStep } from '../flows/identity-ladder.js';
import type { VerificationMethod } from './verification.js';

/** What a proof carries, sealed. Never a number in the clear: `sub` is the keyed hash of the verified number. */
export interface ProofPayload {
  readonly v: 1;
  /** Unique per proof: the key under which its one redemption is claimed. */
  readonly id: string;
  readonly flowId: string;
  readonly kind: 'phone' | 'ussd' | 'identity' | 'dial-in';
  readonly idType?: 'bvn' | 'nin';
  /**
   * How the flow verified. Absent from tokens issued before proofs carried it (they live an hour at most): such a
   * dial-in token counts as `dial-in-identify`, the method an app must opt in to.
   */
  readonly method?: VerificationMethod;
  readonly sub: string;
  /** Identity flows: the steps passed and how (booleans, who answered); absent from tokens made before ladders. */
  readonly steps?: readonly PassedStep[];
  readonly provider: string;
  readonly verifiedAt: number;
  /** Expiry, ms since the epoch on the engine's clock. */
  readonly exp: number;
}

/**
 * `v2.<base64url of AES-256-GCM(iv, tag, payload JSON)>`: the payload is sealed with a key of the
 * engine's secret, so a token is opaque (no flow id, no kind can be read from it) and any change to
 * it makes it invalid.
 */
export const proofTokenPattern = /^v2\.[A-Za-z0-9_-]{40,2048}$/;

/** The domain proofs are sealed in: no other sealed value of the engine opens as a proof. */
const proofDomain = 'verikit proof v2';

const payloadSchema = onFirstUse(() =>
  z.strictObject({
    v: z.literal(1),
    id: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
    flowId: z.string().min(1).max(64),
    kind: z.enum(['phone', 'ussd', 'identity', 'dial-in']),
    idType: z.enum(['bvn', 'nin']).optional(),
    method: z
      .enum(['phone', 'ussd', 'identity', 'dial-in', 'dial-in-identify', 'sms-inbound', 'whatsapp-inbound'])
      .optional(),
    sub: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    steps: z
      .array(
        z.strictObject({
          step: z.enum(['match', 'consent', 'otp', 'face']),
          by: z.string().max(64).optional(),
          fields: z
            .partialRecord(z.enum(['firstName', 'lastName', 'dateOfBirth', 'phoneNumber']), z.boolean())
            .optional(),
          live: z.boolean().optional(),
        }),
      )
      .max(4)
      .optional(),
    provider: z.string().max(200),
    verifiedAt: z.number().int().nonnegative(),
    exp: z.number().int().positive(),
  }),
);

/** The token of a payload. */
export function encodeProof(box: SecretBox, payload: ProofPayload): string {
  return `v2.${box.seal(proofDomain, JSON.stringify(payload))}`;
}

/** The payload of a well-formed token this engine sealed and nobody altered; undefined for anything else. */
export function decodeProof(box: SecretBox, token: string): ProofPayload | undefined {
  try {
    const parsed = payloadSchema().safeParse(JSON.parse(box.open(proofDomain, token.slice(3))));
    return parsed.success ? (parsed.data as ProofPayload) : undefined;
  } catch {
    return undefined;
  }
}
