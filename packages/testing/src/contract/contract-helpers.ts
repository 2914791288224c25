import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';

let sequence = 0;
/** A fresh call context: its own signal and idempotency key, a silent logger. */
export function context(): ProviderCallContextV1 {
  return {
    signal: new AbortController().signal,
    idempotencyKey: `contract:effect:${++sequence}`,
    logger: silentLogger,
  };
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
