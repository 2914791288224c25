import { proofClaimKey } from '../store/store-keys.js';
import type { Logger } from '@verikit/provider';
import { ProofRejectedError, type ProofRejection } from '../errors/proof-rejected-error.js';
import type { FlowRecords } from '../engine/flow-records.js';
import type { Clock } from '../time/clock.js';
import { parseFlowId } from '../inputs/parse-flow-id.js';
import { generateFlowId, type SecretBox } from '../secrets/secrets.js';
import type { FlowStore } from '../store/flow-store.js';
import {
  defaultProofTtlMs,
  parseIssueOptions,
  parseProofClaim,
  parseProofToken,
  type ProofClaim,
} from './proof-inputs.js';
import { equalInConstantTime, identityNumberHash, ProofKeys, type ProofSubject } from './proof-keys.js';
import { decodeProof, encodeProof, type ProofPayload } from './proof-token.js';
import { verificationOf, type Verification } from './verification.js';

/** A proof as issued: the token to hand to the browser, and when it stops being accepted. */
export interface IssuedProof {
  /** The proof to hand the browser, which sends it with the signup form; opaque and signed. */
  readonly token: string;
  /** When `redeemProof` stops accepting it (engine clock, ms since the epoch). */
  readonly expiresAt: number;
}

/** What proofs need from the engine. */
export interface ProofDeps {
  readonly records: FlowRecords;
  readonly store: FlowStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secret: string;
  readonly secrets: SecretBox;
  /** The engine's provider's name: the provider of a flow verified before flows recorded theirs. */
  readonly provider: string;
}

/** The subject a verification proves. */
function subjectOf(verification: Verification): ProofSubject {
  if (verification.kind === 'identity') return { idType: verification.idType!, numberHash: verification.numberHash! };
  return { phoneNumber: verification.phoneNumber! };
}

/**
 * What the backend learns of a verified flow, and the proofs it hands through the browser to its
 * signup endpoint (docs/decisions/0050-proof-of-verification.md). A proof is signed, short-lived,
 * carries only a keyed hash of the verified number, and is accepted once across every instance
 * sharing the store. Neither the token nor a number is ever logged.
 */
export class Proofs {
  readonly #deps: ProofDeps;
  readonly #keys: ProofKeys;

  constructor(deps: ProofDeps) {
    this.#deps = deps;
    this.#keys = new ProofKeys(deps.secret);
  }

  /** What a verified flow verified; a `FlowNotVerifiedError` for any other flow. */
  async verification(rawFlowId: string): Promise<Verification> {
    const { records, clock, provider } = this.#deps;
    const loaded = await records.load(parseFlowId(rawFlowId));
    const snapshot = records.ticked(loaded, clock.now());
    return verificationOf(loaded.record, String(snapshot.value), provider);
  }

  /** A signed proof of a verified flow, for the browser to hand to the signup endpoint. */
  async issue(rawFlowId: string, rawOptions?: { ttlMs?: number }): Promise<IssuedProof> {
    const options = parseIssueOptions(rawOptions);
    const verification = await this.verification(rawFlowId);
    const expiresAt = this.#deps.clock.now() + (options.ttlMs ?? defaultProofTtlMs);
    const payload: ProofPayload = {
      v: 1,
      id: generateFlowId(),
      flowId: verification.flowId,
      kind: verification.kind,
      ...(verification.idType === undefined ? {} : { idType: verification.idType }),
      sub: this.#keys.subjectHash(subjectOf(verification)),
      provider: verification.provider,
      verifiedAt: verification.verifiedAt,
      exp: expiresAt,
    };
    this.#deps.logger.info('verikit.proof.issued', { flowId: verification.flowId, kind: verification.kind });
    return Object.freeze({ token: encodeProof(this.#keys, payload), expiresAt });
  }

  /**
   * Accepts a proof once for the number claimed: checks the signature, the expiry, that the claim is
   * the verified number, then claims the proof's id in the store. A claim for another number leaves
   * the proof usable: only the holder of the right number can use it, and a typo is no lock-out.
   */
  async redeem(rawToken: string, rawClaim: ProofClaim): Promise<Verification> {
    const token = parseProofToken(rawToken);
    const claim = parseProofClaim(rawClaim);
    const { clock, store } = this.#deps;
    const payload = decodeProof(this.#keys, token);
    if (payload === undefined) return this.#reject('invalid');
    const now = clock.now();
    if (now >= payload.exp) return this.#reject('expired', payload);
    const subject = this.#subjectOfClaim(payload, claim);
    if (subject === undefined || !equalInConstantTime(this.#keys.subjectHash(subject), payload.sub))
      return this.#reject('mismatch', payload);
    if (!(await store.claim(proofClaimKey(payload.id), Math.max(1, payload.exp - now))))
      return this.#reject('used', payload);
    this.#deps.logger.info('verikit.proof.redeemed', { flowId: payload.flowId, kind: payload.kind });
    const verification: Verification = {
      flowId: payload.flowId,
      kind: payload.kind,
      ...subject,
      verifiedAt: payload.verifiedAt,
      provider: payload.provider,
    };
    return Object.freeze(verification);
  }

  /** The subject a claim names, for the kind of flow the proof is about; undefined when it cannot be that flow's. */
  #subjectOfClaim(payload: ProofPayload, claim: ProofClaim): ProofSubject | undefined {
    if (payload.kind === 'identity') {
      if (!('idType' in claim) || claim.idType !== payload.idType) return undefined;
      return { idType: claim.idType, numberHash: identityNumberHash(this.#deps.secrets, claim.idType, claim.number) };
    }
    return 'phoneNumber' in claim ? { phoneNumber: claim.phoneNumber } : undefined;
  }

  #reject(reason: ProofRejection, payload?: ProofPayload): never {
    this.#deps.logger.info('verikit.proof.rejected', {
      reason,
      ...(payload === undefined ? {} : { flowId: payload.flowId, kind: payload.kind }),
    });
    throw new ProofRejectedError(reason);
  }
}
