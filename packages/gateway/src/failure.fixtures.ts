import { VerikitError } from '@verikit/provider';
import { expect } from 'vitest';

/** The typed error a call rejects with; fails the test when it resolves or throws anything else. */
export async function failureOf(promise: Promise<unknown>): Promise<VerikitError> {
  try {
    await promise;
  } catch (error) {
    expect(VerikitError.isInstance(error), `not a verikit error: ${String(error)}`).toBe(true);
    return error as VerikitError;
  }
  throw new Error('expected a failure');
}
