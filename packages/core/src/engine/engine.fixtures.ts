import { randomUUID } from 'node:crypto';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import { ManualClock } from './manual-clock.fixtures.js';
import type { Logger } from '@verikit/provider';
import { KeyvFlowStore, createMemoryKeyv } from '../store/keyv-flow-store.js';
import { createVerikit, type VerikitOptions } from './create-verikit.js';

/** Test-only fixtures shared by the engine's tests. */
export const testSecret = 'engine-test-secret-0123456789-abcdefghij';

export interface CapturedLog {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

export function captureLogger(): { logger: Logger; lines: CapturedLog[] } {
  const lines: CapturedLog[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => {
    lines.push({ level, message, ...(fields ? { fields } : {}) });
  };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

export function setup(options: Partial<VerikitOptions> & { provider?: TestProviderV1 } = {}) {
  const provider = options.provider ?? createTestProviderV1();
  const clock = new ManualClock();
  const keyv = createMemoryKeyv();
  const store = new KeyvFlowStore(keyv);
  const { logger, lines } = captureLogger();
  const verikit = createVerikit({ provider, secret: testSecret, clock, store, logger, ...options });
  provider.onEvent((event) => verikit.receive({ id: randomUUID(), event }));
  /** Every raw value in the store, as stored (JSON strings). */
  const raw = (): string => JSON.stringify([...(keyv.store as Map<string, unknown>).entries()]);
  return { provider, clock, keyv, store, verikit, raw, logs: lines };
}
