import { VerikitError, type VerikitErrorOptions } from '@verikit/provider';

/**
 * An idempotency key came back with other parameters than the call it was first used with (as Stripe's
 * `idempotency_error`). Nothing was done by this call. `mismatch` names the parameters that differ, never their values;
 * use a new key for a different request.
 */
export class IdempotencyKeyReusedError extends VerikitError {
  /** The parameters whose values differ from the first call's (`to`, `message`, `phoneNumber`, `call`, …). */
  readonly mismatch: readonly string[];

  constructor(mismatch: readonly string[], options: VerikitErrorOptions = {}) {
    super(
      'idempotency_key_reused',
      `this idempotency key was first used with another ${mismatch.join(', ')}: use a new key for a different request`,
      { field: 'idempotencyKey', ...options },
    );
    this.name = 'IdempotencyKeyReusedError';
    this.mismatch = Object.freeze([...mismatch]);
  }

  override toJSON() {
    return {
      ...super.toJSON(),
      /** The parameters that differ from the first call's. */
      mismatch: [...this.mismatch],
    };
  }

  static override isInstance(error: unknown): error is IdempotencyKeyReusedError {
    return VerikitError.isInstance(error) && error.code === 'idempotency_key_reused';
  }
}
