import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';

let sequence = 0;

/** A fresh provider call context, as the engine gives one: its own signal and idempotency key, a silent logger. */
export function callContext(): ProviderCallContextV1 {
  sequence += 1;
  return { signal: new AbortController().signal, idempotencyKey: `test:effect:${sequence}`, logger: silentLogger };
}
