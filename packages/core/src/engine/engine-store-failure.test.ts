import { createTestProvider } from '@verikit/testing';
import Keyv from 'keyv';
import { describe, expect, it } from 'vitest';
import { FlowNotFoundError, StoreError } from '../spec/errors/index.js';
import { KeyvFlowStore } from '../store/keyv-flow-store.js';
import { createVerikit } from './create-verikit.js';
import { testSecret } from './engine.fixtures.js';

/** A Map that can be switched off, standing in for a store that went down. */
class FlakyMap extends Map<string, unknown> {
  down = false;
  override get(key: string) {
    if (this.down) throw new Error('ECONNREFUSED 10.0.0.1:6379 with password hunter2');
    return super.get(key);
  }
  override set(key: string, value: unknown) {
    if (this.down) throw new Error('ECONNREFUSED');
    return super.set(key, value);
  }
}

describe('a failing store', () => {
  it('is a retryable StoreError, never "flow not found", and the flow continues when the store is back', async () => {
    const map = new FlakyMap();
    const keyv = new Keyv({ store: map, serialize: JSON.stringify, deserialize: JSON.parse });
    const verikit = createVerikit({ provider: createTestProvider(), secret: testSecret, store: new KeyvFlowStore(keyv) });
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    map.down = true;
    for (const call of [() => verikit.get(id), () => verikit.send(id, { type: 'submit-code', code: '123456' }), () => verikit.start({ kind: 'ussd', phoneNumber: '+2348012345679' })]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(StoreError.isInstance(error)).toBe(true);
      expect(FlowNotFoundError.isInstance(error)).toBe(false);
      expect((error as StoreError).isRetryable).toBe(true);
      expect((error as StoreError).statusCode).toBe(503);
      expect((error as Error).message).not.toContain('hunter2');
    }
    map.down = false;
    expect((await verikit.send(id, { type: 'submit-code', code: '123456' })).status).toBe('verified');
  });
});
