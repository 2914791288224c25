import { createVerikit, StoreDeadlineError, StoreError, type ProviderV1 } from '@verikit/core';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarioPolicies, scenarioSecret } from './multi-process.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { PrivateRedis, redisServerSkipReason } from './redis-test-env.fixtures.js';

const serverMissing = await redisServerSkipReason('@verikit/redis call deadline');

/** The Redis time one engine call may take in these tests. */
const deadlineMs = 1500;

/** A test provider whose phone send runs `onSend` first (here: freezing Redis in the middle of an engine call). */
function providerFreezingOnSend(onSend: () => void): ProviderV1 {
  const double = createTestProviderV1();
  const phone = double.phone!;
  let armed = false;
  return Object.assign(
    {
      ...double,
      phone: {
        ...phone,
        send: (input: Parameters<typeof phone.send>[0], context: Parameters<typeof phone.send>[1]) => {
          if (armed) onSend();
          return phone.send(input, context);
        },
      },
    },
    {
      arm: () => {
        armed = true;
      },
    },
  );
}

describe.skipIf(serverMissing !== undefined)(
  'one Redis deadline per engine call (a private redis-server, frozen)',
  () => {
    let redis: PrivateRedis;
    let store: RedisFlowStore;

    beforeAll(async () => {
      redis = await PrivateRedis.start();
      store = createRedisStore({ url: redis.url, namespace: 'call-deadline', commandTimeoutMs: deadlineMs });
      await store.connect();
    });

    afterAll(async () => {
      redis?.resume();
      await store?.disconnect().catch(() => undefined);
      await redis?.dispose();
    });

    it(`a resend whose commands wait on a Redis frozen twice fails within ${deadlineMs} ms of Redis time, naming the deadline, its last write whole or not at all`, async () => {
      const provider = providerFreezingOnSend(() => redis.pause());
      const verikit = createVerikit({ provider, store, secret: scenarioSecret, policies: scenarioPolicies });
      const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber() });
      expect(flow.status).toBe('awaiting-code');
      const before = (await store.getFlow(flow.id))!.version;
      (provider as unknown as { arm(): void }).arm();

      // Redis hangs for 1 s as the resend starts (its first read waits that long and is answered), then again from the
      // moment the code is sent: the commit of the send's result gets only what the call has left, about 500 ms. With a
      // deadline per command it would wait its own 1500 ms (2.5 s in all).
      redis.pause();
      const thaw = setTimeout(() => redis.resume(), 1000);
      const startedAt = performance.now();
      const failure = await verikit.send(flow.id, { type: 'resend' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      const tookMs = performance.now() - startedAt;
      clearTimeout(thaw);
      try {
        expect(StoreDeadlineError.isInstance(failure), String(failure)).toBe(true);
        const error = failure as StoreDeadlineError;
        expect(StoreError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ name: 'StoreDeadlineError', deadlineMs, written: 'unknown', isRetryable: true });
        expect(error.message).toBe(
          `the flow store failed to write a flow: Redis gave no answer within the call's deadline of ${deadlineMs} ms; ` +
            'the write may still be applied, whole',
        );
        // Not before the deadline. How soon after it is not asserted (a loaded machine adds its own delay, and a
        // provider call between two commands is not Redis time): that the commands shared one deadline is what the
        // message says (a command's own deadline says "within 1500 ms", not "the call's"), and the fake clock of
        // command-deadline.test.ts proves the sum (two 600 ms commands fail at 1000 ms of Redis time in all).
        expect(tookMs).toBeGreaterThanOrEqual(deadlineMs - 50);
      } finally {
        redis.resume();
      }
      // Redis applies the write it was sent when it wakes, whole: the resend (before + 1) and its result (before + 2).
      await expect.poll(async () => (await store.getFlow(flow.id))?.version, { timeout: 5000 }).toBe(before + 2);
      expect((await verikit.get(flow.id)).status).toBe('awaiting-code');
    });

    it('a call that has spent its Redis time sends nothing more: the error says nothing was written', async () => {
      await store.setRoute('call-deadline:route', 'flow-1', 60_000);
      redis.pause();
      const thaw = setTimeout(() => redis.resume(), deadlineMs + 200);
      try {
        const call = store.openCall();
        const failure = await (async () => {
          // The read waits past the call's deadline; the write after it is never sent.
          await store.getRoute('call-deadline:route', call).catch(() => undefined);
          await store.setRoute('call-deadline:route', 'flow-2', 60_000, call);
        })()
          .finally(() => call.end())
          .then(
            () => undefined,
            (error: unknown) => error,
          );
        expect(failure).toMatchObject({ name: 'StoreDeadlineError', deadlineMs, written: 'no' });
        expect((failure as Error).message).toBe(
          `the flow store failed to write a route: the call's deadline of ${deadlineMs} ms had passed before it was sent`,
        );
      } finally {
        clearTimeout(thaw);
        redis.resume();
      }
      expect(await store.getRoute('call-deadline:route')).toBe('flow-1');
    });
  },
);
