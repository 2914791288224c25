import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/**
 * Why a proof of verification was refused; safe to show. `invalid`: not a proof signed with this engine's
 * secret, or altered; `expired`; `mismatch`: it proves another number than the one claimed; `used`: it was
 * redeemed before; `method`: the flow verified by a method the endpoint does not accept (a "who is this"
 * dial-in or an SMS-inbound proof, unless named in `methods`); `steps`: the flow did not pass every identity step the endpoint requires
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

/** Options of a `ProofRejectedError`. */
export interface ProofRejectedErrorOptions extends VerikitErrorOptions {
  /** With reason `method`: the proof's method (a `VerificationMethod`), and what to say of it instead of the default. */
  method?: {
    /** The method, such as `sms-inbound`. */
    name: string;
    /** The error's message: why such a proof is refused, and how to accept it. */
    message: string;
  };
}

/** `redeemProof` refused the token: the signup must not trust the claimed number. */
export class ProofRejectedError extends VerikitError {
  /** Why: a signup branches on it (ask again, or start a new verification). */
  readonly reason: ProofRejection;
  /**
   * With reason `method`: the method the refused proof was made by (a `VerificationMethod`, such as `sms-inbound`);
   * naming it in `redeemProof`'s `methods` accepts it.
   */
  readonly method: string | undefined;

  constructor(reason: ProofRejection, { method, ...options }: ProofRejectedErrorOptions = {}) {
    super('proof_rejected', method?.message ?? messages[reason], {
      field: reason === 'mismatch' ? 'claim' : 'token',
      ...options,
    });
    this.name = 'ProofRejectedError';
    this.reason = reason;
    this.method = method?.name;
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      /** Why the proof was refused. */
      reason: this.reason,
      ...(this.method === undefined
        ? {}
        : {
            /** With reason `method`: the refused proof's method. */
            method: this.method,
          }),
    };
  }

  static override isInstance(error: unknown): error is ProofRejectedError {
    return VerikitError.isInstance(error) && error.code === 'proof_rejected';
  }
}
