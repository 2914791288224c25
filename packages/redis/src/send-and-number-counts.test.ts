import { createVerikit, RateLimitedError } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { commandsOf, usePrivateStore } from './counted-commands.fixtures.js';
import { redisServerSkipReason } from './redis-test-env.fixtures.js';

const secret = 'send-and-number-secret-0123456789-abcdefg';
const serverMissing = await redisServerSkipReason('@verikit/redis send and number counts, on a server of its own');

describe.skipIf(serverMissing !== undefined)(
  "a send's counts and its number's limit on one node (decision 1760)",
  () => {
    const privateStore = usePrivateStore('send-and-number');

    it('are one script run, all or none, on the units the store counts the number on', async () => {
      const store = await privateStore();
      await store.connect();
      const guard = store.sendGuardStore();
      expect(guard.consumeWithRecipient).toBeTypeOf('function');
      const client = { name: 'per-client' as const, keyPrefix: 'guard:per-client', points: 10, durationSeconds: 600 };
      const counts = [{ spec: client, key: 'c1', points: 1, shared: false }];
      const now = 1_000_000;
      const number = { key: 'sends:n1', limit: 2, windowMs: 3_600_000, now };
      const clientCount = () => store.client.get(store.redisKey('guard:per-client:c1'));
      // The script's first run on this server loads it (NOSCRIPT, then EVAL); the runs counted below are by SHA.
      await guard.consumeWithRecipient!([{ ...counts[0]!, key: 'c0' }], { ...number, key: 'sends:n0' }, {});
      // The client's new counter and the number's: one script, a SET NX each.
      expect(await commandsOf(store, () => guard.consumeWithRecipient!(counts, number, {}))).toEqual({
        evalsha: 1,
        set: 2,
      });
      expect(await guard.consumeWithRecipient!(counts, number, {})).toBeUndefined();
      // The number's third send is refused: its index is after the counts, the wait is its window's rest, and the
      // client's unit is given back in the same run.
      expect(await guard.consumeWithRecipient!(counts, number, {})).toEqual({ index: 1, msBeforeNext: 3_600_000 });
      expect(await clientCount()).toBe('2');
      // The store counts the number on the same units: full for it too, free again in the next window.
      expect(await store.consume('sends:n1', 2, 3_600_000, now + 10)).toMatchObject({ allowed: false, used: 2 });
      expect(await guard.consumeWithRecipient!(counts, { ...number, now: now + 3_600_000 }, {})).toBeUndefined();
      // A refusal of the guard's count takes nothing of the number's limit.
      const full = [{ spec: { ...client, points: 3 }, key: 'c1', points: 1, shared: false }];
      const refused = await guard.consumeWithRecipient!(full, { ...number, key: 'sends:n2' }, {});
      expect(refused?.index).toBe(0);
      expect(await store.client.exists(store.redisKey('limit:sends:n2'))).toBe(0);
    });

    it("an engine's start counts guard and number in one script; a refused number gives the client its unit back", async () => {
      const store = await privateStore();
      await store.connect();
      const provider = createTestProviderV1();
      const verikit = createVerikit({
        provider,
        store,
        secret,
        guard: { perClient: { points: 1 }, perPrefix: false, global: false },
        policies: { maxSendsPerHour: 1 },
        timers: { pollMs: 0 },
      });
      try {
        // The first start loads the scripts. Then the counts, the new flow's SET NX, its commit after the send, the
        // delivery route: two scripts, not three.
        await verikit.start({ kind: 'phone', phoneNumber: '+2348012349999' }, { client: 'c8' });
        const second = await commandsOf(store, () =>
          verikit.start({ kind: 'phone', phoneNumber: '+2348012340000' }, { client: 'c9' }),
        );
        expect(second).toMatchObject({ evalsha: 2 });
        expect(second.eval).toBeUndefined();
        // The number's one send is taken: 20 more presses from c1 are refused by it and leave c1 its one unit.
        for (let press = 0; press < 20; press += 1) {
          const error = await verikit
            .start({ kind: 'phone', phoneNumber: '+2348012340000' }, { client: 'c1' })
            .catch((caught: unknown) => caught);
          expect(RateLimitedError.isInstance(error) && /for this recipient/.test(error.message)).toBe(true);
        }
        await verikit.start({ kind: 'phone', phoneNumber: '+2348012340001' }, { client: 'c1' });
        await expect(verikit.start({ kind: 'phone', phoneNumber: '+2348012340002' }, { client: 'c1' })).rejects.toThrow(
          /per-client/,
        );
        expect(provider.callsOf('phone.send')).toHaveLength(3);
      } finally {
        await verikit.close();
      }
    });
  },
);
