import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { IdentityType } from '@verikit/provider';
import type { SecretBox } from '../secrets/secrets.js';

/** What a proof is about: a phone number, or an identity number of a type. */
export type ProofSubject =
  | { readonly phoneNumber: string }
  | { readonly idType: IdentityType; readonly numberHash: string };

/**
 * The keyed hash under which the engine's identity flows know a BVN/NIN (the flow's `numberHash`);
 * identity-flow.ts computes the same at the start of a flow.
 */
export function identityNumberHash(secrets: SecretBox, idType: IdentityType, number: string): string {
  return secrets.hash(`number:${idType}`, number);
}

/**
 * The key of proofs' subjects, derived from the engine's secret (HKDF-SHA256) for proofs only, so that a
 * proof's subject hash is worth nothing anywhere else (and no other hash of the engine
 * is a proof's).
 */
export class ProofKeys {
  readonly #subjectKey: Buffer;

  constructor(secret: string) {
    this.#subjectKey = Buffer.from(hkdfSync('sha256', secret, 'verikit', 'verikit proof subject v1', 32));
  }

  /** The keyed hash a proof carries instead of the number: a phone number, or an identity number's keyed hash. */
  subjectHash(subject: ProofSubject): string {
    const hmac = createHmac('sha256', this.#subjectKey);
    if ('phoneNumber' in subject) hmac.update('phone\0').update(subject.phoneNumber);
    else hmac.update(`${subject.idType}\0`).update(subject.numberHash);
    return hmac.digest('base64url');
  }
}

/** Compares two strings in time that depends only on their lengths. */
export function equalInConstantTime(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
