import { describe, expect, it } from 'vitest';
import { StoreError, UsageError } from '../errors/index.js';
import { setup } from './engine.fixtures.js';

const phone = '+2348012345678';

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('subscribed(flowId) called out of order', () => {
  it('is a usage error naming flowId and saying to subscribe first, not a retryable store outage', async () => {
    const { verikit } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const error = await failureOf(verikit.subscribed(id));
    expect(UsageError.isInstance(error)).toBe(true);
    expect(StoreError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ code: 'usage_error', field: 'flowId', isRetryable: false });
    expect((error as Error).message).toMatch(/call subscribe\(flowId, listener\) first/);
    expect((error as Error).message).not.toContain(id);
  });

  it('resolves while a subscription lives, and is refused again once the last one is gone', async () => {
    const { verikit } = setup();
    const { id } = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const first = verikit.subscribe(id, () => {});
    const second = verikit.subscribe(id, () => {});
    await expect(verikit.subscribed(id)).resolves.toBeUndefined();
    first();
    first(); // a second call of the same unsubscribe changes nothing
    await expect(verikit.subscribed(id)).resolves.toBeUndefined();
    second();
    expect(UsageError.isInstance(await failureOf(verikit.subscribed(id)))).toBe(true);
  });

  it('is refused for another flow than the one subscribed to', async () => {
    const { verikit } = setup();
    const a = await verikit.start({ kind: 'phone', phoneNumber: phone });
    const b = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    const unsubscribe = verikit.subscribe(a.id, () => {});
    expect(UsageError.isInstance(await failureOf(verikit.subscribed(b.id)))).toBe(true);
    unsubscribe();
  });
});
