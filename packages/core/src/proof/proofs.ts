import { proofRedeemedKey, proofRedemptionKey } from '../keys/store-keys.js';
import type { IdentityStep, Logger } from '@verikit/provider';
import { ProofRejectedError, type ProofRejection } from '../errors/proof-rejected-error.js';
import type { Clock } from '../time/clock.js';
import { parseFlowId } from '../inputs/inputs.js';
import { generateFlowId, type SecretBox } from '../secrets/secrets.js';
import type { FlowRecord, FlowStore, StoreCall } from '../store/flow-store.js';
import {
  defaultProofTtlMs,
  parseIssueOptions,
  parseRedeemItems,
  parseRedeemOptions,
  type ProofClaim,
  type RedeemProofOptions,
} from './proof-inputs.js';
import { equalInConstantTime, identityNumberHash, ProofKeys, type ProofSubject } from './proof-keys.js';
import { decodeProof, encodeProof, type ProofPayload } from './proof-token.js';
import { redemptionMemoryMs } from './redemption-memory.js';
import {
  defaultProofMethods,
  methodOf,
  methodRefusal,
  verificationOf,
  type Verification,
  type VerificationMethod,
} from './verification.js';

/** A proof as issued: the token to hand to the browser, and when it stops being accepted. */
export interface IssuedProof {
  /** The proof to hand the browser, which sends it with the signup form; opaque and signed. */
  readonly token: string;
  /** When `redeemProof` stops accepting it (engine clock, ms since the epoch). */
  readonly expiresAt: number;
}

/** What proofs need from the engine. */
export interface ProofDeps {
  /** Reads a flow as of now: its record, and its status once a passed deadline is applied. */
  readonly read: (flowId: string, call?: StoreCall) => Promise<{ record: FlowRecord; status: string }>;
  readonly store: FlowStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secret: string;
  readonly secrets: SecretBox;
  /** The engine's provider's name: the provider of a flow verified before flows recorded theirs. */
  readonly provider: string;
}

/** How the flow of a proof verified (a token from before proofs carried it: from its kind, see `ProofPayload`). */
function methodOfPayload(payload: ProofPayload): VerificationMethod {
  return payload.method ?? methodOf(payload.kind, undefined);
}

/** The subject a verification proves. */
function subjectOf(verification: Verification): ProofSubject {
  if (verification.kind === 'identity') return { idType: verification.idType!, numberHash: verification.numberHash! };
  return { phoneNumber: verification.phoneNumber! };
}

/**
 * What the backend learns of a verified flow, and the proofs it hands through the browser to its
 * signup endpoint (docs/decisions/0050-proof-of-verification.md). A proof is sealed (opaque),
 * short-lived, carries only a keyed hash of the verified number, and a flow's proofs are accepted
 * once in all across every instance sharing the store (decision 0902). Neither the token nor a number is ever logged.
 */
export class Proofs {
  readonly #deps: ProofDeps;
  readonly #keys: ProofKeys;

  constructor(deps: ProofDeps) {
    this.#deps = deps;
    this.#keys = new ProofKeys(deps.secret);
  }

  /** What a verified flow verified; a `FlowNotVerifiedError` for any other flow. */
  async verification(rawFlowId: string, call?: StoreCall): Promise<Verification> {
    const { record, status } = await this.#deps.read(parseFlowId(rawFlowId), call);
    return verificationOf(record, status, this.#deps.provider);
  }

  /** A signed proof of a verified flow, for the browser to hand to the signup endpoint. */
  async issue(rawFlowId: string, rawOptions?: { ttlMs?: number }, call?: StoreCall): Promise<IssuedProof> {
    const options = parseIssueOptions(rawOptions);
    const verification = await this.verification(rawFlowId, call);
    // A verification is redeemed once: after that, the flow proves nothing more.
    if ((await this.#deps.store.getRoute(proofRedeemedKey(verification.flowId), call)) !== undefined)
      this.#reject('used', { flowId: verification.flowId, kind: verification.kind });
    const expiresAt = this.#deps.clock.now() + (options.ttlMs ?? defaultProofTtlMs);
    const payload: ProofPayload = {
      v: 1,
      id: generateFlowId(),
      flowId: verification.flowId,
      kind: verification.kind,
      method: verification.method,
      ...(verification.idType === undefined ? {} : { idType: verification.idType }),
      sub: this.#keys.subjectHash(subjectOf(verification)),
      ...(verification.steps === undefined ? {} : { steps: verification.steps }),
      provider: verification.provider,
      verifiedAt: verification.verifiedAt,
      exp: expiresAt,
    };
    this.#deps.logger.info('verikit.proof.issued', { flowId: verification.flowId, kind: verification.kind });
    return Object.freeze({ token: encodeProof(this.#deps.secrets, payload), expiresAt });
  }

  /**
   * Accepts a proof once for the number claimed: opens the token, checks the expiry, that the claim
   * is the verified number, then claims the flow's one redemption in the store. A claim for another
   * number leaves the proof usable: only the holder of the right number can use it, and a typo is no
   * lock-out.
   */
  async redeem(
    rawToken: string,
    rawClaim: ProofClaim,
    rawOptions?: RedeemProofOptions,
    call?: StoreCall,
  ): Promise<Verification> {
    const [verification] = await this.#redeem([{ token: rawToken, claim: rawClaim }], true, rawOptions, call);
    return verification!;
  }

  /**
   * Accepts several proofs as one claim set, all or none: every token is opened and checked against
   * its claim, and every flow is checked unredeemed, before any is claimed. Only a redeem of the same
   * flow racing this one can leave part of a set claimed (docs/security.md).
   */
  redeemAll(
    items: readonly { token: string; claim: ProofClaim }[],
    rawOptions?: RedeemProofOptions,
    call?: StoreCall,
  ): Promise<Verification[]> {
    return this.#redeem(items, false, rawOptions, call);
  }

  /** Redeems a set; a rejection names the field of the proof at fault (`proofs.1.token`, or `token` for one). */
  async #redeem(
    items: readonly { token: string; claim: ProofClaim }[],
    single: boolean,
    rawOptions: RedeemProofOptions | undefined,
    call: StoreCall | undefined,
  ): Promise<Verification[]> {
    const options = parseRedeemOptions(rawOptions);
    const methods = options.methods ?? defaultProofMethods;
    const required = options.steps ?? [];
    const field = (index: number, part: 'token' | 'claim') => (single ? part : `proofs.${index}.${part}`);
    const checked = parseRedeemItems(items, single).map(({ token, claim }, index) =>
      this.#check(token, claim, methods, required, (part) => field(index, part)),
    );
    const flowIds = checked.map(({ payload }) => payload.flowId);
    const repeated = flowIds.findIndex((flowId, index) => flowIds.indexOf(flowId) !== index);
    if (repeated >= 0) this.#reject('used', checked[repeated]!.payload, field(repeated, 'token'));
    const { store } = this.#deps;
    for (const [index, { payload }] of checked.entries()) {
      if ((await store.getRoute(proofRedeemedKey(payload.flowId), call)) !== undefined)
        this.#reject('used', payload, field(index, 'token'));
    }
    // One order for every set, so two sets racing for the same flows meet at the first one they share.
    const order = [...checked.keys()].sort((a, b) => (flowIds[a]! < flowIds[b]! ? -1 : 1));
    for (const index of order) {
      const { payload } = checked[index]!;
      if (!(await store.claim(proofRedemptionKey(payload.flowId), redemptionMemoryMs, call)))
        this.#reject('used', payload, field(index, 'token'));
      await store.setRoute(proofRedeemedKey(payload.flowId), payload.flowId, redemptionMemoryMs, call);
    }
    return checked.map(({ payload, subject }) => {
      this.#deps.logger.info('verikit.proof.redeemed', { flowId: payload.flowId, kind: payload.kind });
      const verification: Verification = {
        flowId: payload.flowId,
        kind: payload.kind,
        method: methodOfPayload(payload),
        ...subject,
        ...(payload.steps === undefined ? {} : { steps: payload.steps }),
        verifiedAt: payload.verifiedAt,
        provider: payload.provider,
      };
      return Object.freeze(verification);
    });
  }

  /** A token opened and checked against its claim, before anything is claimed. */
  #check(
    token: string,
    claim: ProofClaim,
    methods: readonly VerificationMethod[],
    required: readonly IdentityStep[],
    field: (part: 'token' | 'claim') => string,
  ): { payload: ProofPayload; subject: ProofSubject } {
    const payload = decodeProof(this.#deps.secrets, token);
    if (payload === undefined) return this.#reject('invalid', undefined, field('token'));
    if (this.#deps.clock.now() >= payload.exp) return this.#reject('expired', payload, field('token'));
    // Before the claim is compared: a method the app does not accept tells nothing about the number.
    const method = methodOfPayload(payload);
    if (!methods.includes(method)) return this.#reject('method', payload, field('token'), method);
    if (required.length > 0) {
      const passed = new Set(
        (payload.steps ?? (payload.kind === 'identity' ? [{ step: 'otp' }] : [])).map((s) => s.step),
      );
      if (!required.every((step) => passed.has(step))) return this.#reject('steps', payload, field('token'));
    }
    const subject = this.#subjectOfClaim(payload, claim);
    if (subject === undefined || !equalInConstantTime(this.#keys.subjectHash(subject), payload.sub))
      return this.#reject('mismatch', payload, field('claim'));
    return { payload, subject };
  }

  /** The subject a claim names, for the kind of flow the proof is about; undefined when it cannot be that flow's. */
  #subjectOfClaim(payload: ProofPayload, claim: ProofClaim): ProofSubject | undefined {
    if (payload.kind === 'identity') {
      if (!('idType' in claim) || claim.idType !== payload.idType) return undefined;
      return { idType: claim.idType, numberHash: identityNumberHash(this.#deps.secrets, claim.idType, claim.number) };
    }
    return 'phoneNumber' in claim ? { phoneNumber: claim.phoneNumber } : undefined;
  }

  /** Logs the refusal (the flow id, its kind and the method: never the token or a number) and throws it. */
  #reject(
    reason: ProofRejection,
    payload?: Pick<ProofPayload, 'flowId' | 'kind'>,
    field?: string,
    method?: VerificationMethod,
  ): never {
    this.#deps.logger.info('verikit.proof.rejected', {
      reason,
      ...(payload === undefined ? {} : { flowId: payload.flowId, kind: payload.kind }),
      ...(method === undefined ? {} : { method }),
    });
    throw new ProofRejectedError(reason, {
      ...(field === undefined ? {} : { field }),
      ...(method === undefined ? {} : { method: { name: method, message: methodRefusal(method) } }),
    });
  }
}
