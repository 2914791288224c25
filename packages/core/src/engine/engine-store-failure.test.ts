import { inspect } from 'node:util';
import { createTestProviderV1 } from '@verikit/testing';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { FlowNotFoundError, StoreError } from '../errors/index.js';
import { KeyvFlowStore } from '../store/keyv-flow-store.js';
import type { FlowRecord } from '../store/flow-store.js';
import { createVerikit } from './create-verikit.js';
import { testSecret } from './engine.fixtures.js';

/** What a driver's error can carry: the address, the password, a nested cause with the connection URL. */
function driverError(): Error {
  const error = new Error('ECONNREFUSED 10.0.0.1:6379 with password hunter2', {
    cause: new Error('connect to redis://default:hunter2@10.0.0.1:6379 failed'),
  }) as Error & { code?: string; address?: string };
  error.code = 'ECONNREFUSED';
  error.address = '10.0.0.1';
  return error;
}

/** A Map that can be switched off, standing in for a store that went down. */
class FlakyMap extends Map<string, unknown> {
  down = false;
  override get(key: string) {
    if (this.down) throw driverError();
    return super.get(key);
  }
  override set(key: string, value: unknown) {
    if (this.down) throw new Error('write to 10.0.0.1:6379 refused, password=hunter2');
    return super.set(key, value);
  }
}

/** Every string reachable from an error: own properties (hidden ones too), the cause chain, the stack, and how it prints. */
function everythingIn(error: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const walk = (value: unknown, depth: number): void => {
    if (value === null || value === undefined || depth > 20) return;
    if (typeof value !== 'object' && typeof value !== 'function') {
      parts.push(String(value));
      return;
    }
    if (seen.has(value)) return;
    seen.add(value);
    for (const key of Reflect.ownKeys(value)) walk((value as Record<PropertyKey, unknown>)[key], depth + 1);
  };
  walk(error, 0);
  parts.push(String(error), JSON.stringify(error), inspect(error, { depth: Infinity, showHidden: true }));
  return parts.join('\n');
}

function expectSafe(error: unknown, code: string | undefined): void {
  expect(StoreError.isInstance(error)).toBe(true);
  const everything = everythingIn(error);
  for (const secret of ['hunter2', '10.0.0.1', '6379', 'redis://']) expect(everything).not.toContain(secret);
  // The walk really went down the chain: the StoreError, then its cause.
  expect(everything).toContain('the flow store failed to');
  expect(everything).toContain('StoreDriverError');
  // The cause keeps what helps an operator: the driver's error class and system code, nothing more.
  const cause = (error as Error).cause as Error;
  expect(cause).toBeInstanceOf(Error);
  expect(cause.message).toBe(code === undefined ? 'Error' : `Error (${code})`);
  expect(cause.cause).toBeUndefined();
}

describe('a failing store', () => {
  it('is a retryable StoreError, never "flow not found", and the flow continues when the store is back', async () => {
    const map = new FlakyMap();
    const keyv = new Keyv({ store: map, serialize: JSON.stringify, deserialize: JSON.parse });
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: testSecret,
      store: new KeyvFlowStore(keyv),
    });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    map.down = true;
    for (const call of [
      () => verikit.get(id),
      () => verikit.send(id, { type: 'submit-code', code: '123456' }),
      () => verikit.start({ kind: 'ussd', phoneNumber: '+2348012345679' }),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(StoreError.isInstance(error)).toBe(true);
      expect(FlowNotFoundError.isInstance(error)).toBe(false);
      expect((error as StoreError).isRetryable).toBe(true);
      expect((error as Error).message).not.toContain('hunter2');
    }
    map.down = false;
    expect((await verikit.send(id, { type: 'submit-code', code: '123456' })).status).toBe('verified');
  });

  it('keeps no password or address from the driver error in the StoreError, its cause chain or its stack', async () => {
    const map = new FlakyMap();
    const keyv = new Keyv({ store: map, serialize: JSON.stringify, deserialize: JSON.parse });
    const store = new KeyvFlowStore(keyv);
    const verikit = createVerikit({ provider: createTestProviderV1(), secret: testSecret, store });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    map.down = true;
    // Reads fail with the coded driver error; writes with a plain one.
    for (const call of [
      () => verikit.get(id),
      () => verikit.send(id, { type: 'submit-code', code: '123456' }),
      () => store.getRoute('ussd:+2348012345678'),
    ]) {
      expectSafe(await call().catch((caught: unknown) => caught), 'ECONNREFUSED');
    }
    const written = await store.setRoute('ussd:+2348012345678', id, 60_000).catch((caught: unknown) => caught);
    expectSafe(written, undefined);
  });
  it('fails the calls queued behind a store failure on the same flow at once, instead of one store timeout each', async () => {
    // A store that hangs: each command fails after a delay, as a Redis command timeout would.
    class HangingStore extends KeyvFlowStore {
      hanging = false;
      calls = 0;
      async #hang(): Promise<never> {
        this.calls += 1;
        await new Promise((resolve) => setTimeout(resolve, 30));
        throw new StoreError('the flow store failed: no answer in time');
      }
      override async getFlow(id: string) {
        return this.hanging ? this.#hang() : super.getFlow(id);
      }
      override async compareAndSetFlow(record: FlowRecord, expectedVersion: number, ttlMs: number) {
        return this.hanging ? this.#hang() : super.compareAndSetFlow(record, expectedVersion, ttlMs);
      }
    }
    const store = new HangingStore();
    const verikit = createVerikit({ provider: createTestProviderV1(), secret: testSecret, store });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    store.hanging = true;
    const results = await Promise.all(
      Array.from({ length: 5 }, () =>
        verikit.send(id, { type: 'submit-code', code: '000000' }).catch((error: unknown) => error),
      ),
    );
    for (const error of results) {
      expect(StoreError.isInstance(error)).toBe(true);
      expect((error as StoreError).isRetryable).toBe(true);
    }
    // Only the first call waited for the store (its write: it started from the record committed before); the four
    // queued behind it failed with it.
    expect(store.calls).toBe(1);
    // The queue is not poisoned: once the store answers, the next call goes through.
    store.hanging = false;
    expect((await verikit.send(id, { type: 'submit-code', code: '123456' })).status).toBe('verified');
  });
});
