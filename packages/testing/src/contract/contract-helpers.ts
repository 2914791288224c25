import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';

let sequence = 0;
/** A fresh call context: its own signal and idempotency key, a silent logger. */
export function context(): ProviderCallContextV1 {
  return { signal: new AbortController().signal, idempotencyKey: `contract:effect:${++sequence}`, logger: silentLogger };
}

/** The error a call rejects with; throws when it succeeds. */
export async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, and it succeeded');
}

/** The error `run` throws, or null. */
export function failureOrNull(run: () => unknown): unknown {
  try {
    run();
    return null;
  } catch (error) {
    return error;
  }
}
