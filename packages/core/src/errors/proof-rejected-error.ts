import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/**
 * Why a proof of verification was refused; safe to show. `invalid`: not a proof signed with this engine's
 * secret, or altered; `expired`; `mismatch`: it proves another number than the one claimed; `used`: it was
 * redeemed before; `method`: the flow verified by a method the endpoint does not accept (a "who is this"
 * dial-in, unless named in `methods`); `steps`: the flow did not pass every identity step the endpoint requires
 * (`steps`).
 */
export type ProofRejection = 'invalid' | 'expired' | 'mismatch' | 'used' | 'method' | 'steps';

const messages: Readonly<Record<ProofRejection, string>> = {
  invalid: 'the proof is not valid',
  expired: 'the proof has expired',
  mismatch: 'the proof is for another number',
  used: 'the proof was used already',
  method: 'the proof was made by a method this endpoint does not accept',
  steps: 'the proof lacks an identity step this endpoint requires',
};

/** `redeemProof` refused the token: the signup must not trust the claimed number. */
export class ProofRejectedError extends VerikitError {
  /** Why: a signup branches on it (ask again, or start a new verification). */
  readonly reason: ProofRejection;

  constructor(reason: ProofRejection, options: VerikitErrorOptions = {}) {
    super('proof_rejected', messages[reason], { field: reason === 'mismatch' ? 'claim' : 'token', ...options });
    this.name = 'ProofRejectedError';
    this.reason = reason;
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      /** Why the proof was refused. */
      reason: this.reason,
    };
  }

  static override isInstance(error: unknown): error is ProofRejectedError {
    return VerikitError.isInstance(error) && error.code === 'proof_rejected';
  }
}
