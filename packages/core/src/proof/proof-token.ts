import { z } from 'zod';
import type { ProofKeys } from './proof-keys.js';

/** What a proof carries, signed. Never a number in the clear: `sub` is the keyed hash of the verified number. */
export interface ProofPayload {
  readonly v: 1;
  /** Unique per proof: the key under which its one redemption is claimed. */
  readonly id: string;
  readonly flowId: string;
  readonly kind: 'phone' | 'ussd' | 'identity';
  readonly idType?: 'bvn' | 'nin';
  readonly sub: string;
  readonly provider: string;
  readonly verifiedAt: number;
  /** Expiry, ms since the epoch on the engine's clock. */
  readonly exp: number;
}

/** `v1.<base64url JSON payload>.<base64url HMAC-SHA256>`. */
export const proofTokenPattern = /^v1\.[A-Za-z0-9_-]{1,2048}\.[A-Za-z0-9_-]{43}$/;

const payloadSchema = z.strictObject({
  v: z.literal(1),
  id: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  flowId: z.string().min(1).max(64),
  kind: z.enum(['phone', 'ussd', 'identity']),
  idType: z.enum(['bvn', 'nin']).optional(),
  sub: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  provider: z.string().max(200),
  verifiedAt: z.number().int().nonnegative(),
  exp: z.number().int().positive(),
});

/** The token of a payload: what is signed is the version and the encoded payload. */
export function encodeProof(keys: ProofKeys, payload: ProofPayload): string {
  const signed = `v1.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${signed}.${keys.sign(signed)}`;
}

/** The payload of a well-formed token whose signature holds; undefined for anything else. */
export function decodeProof(keys: ProofKeys, token: string): ProofPayload | undefined {
  const cut = token.lastIndexOf('.');
  const signed = token.slice(0, cut);
  if (!keys.verify(signed, token.slice(cut + 1))) return undefined;
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(Buffer.from(signed.slice(3), 'base64url').toString('utf8')));
    return parsed.success ? (parsed.data as ProofPayload) : undefined;
  } catch {
    return undefined;
  }
}
