import { createVerikit, isReplayed, type Verikit } from '@verikit/core';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore, type RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis idempotency keys across instances');
const secret = 'idempotency-redis-secret-0123456789abcdef';
const namespace = uniqueNamespace('idempotency');
const phone = '+2348012345678';

describe.skipIf(skipReason !== undefined)(
  'an idempotency key holds across two instances on one Redis (decision 1660)',
  () => {
    const stores: RedisFlowStore[] = [];
    afterAll(async () => {
      for (const store of stores) await store.disconnect();
      await deleteNamespace(namespace);
    });

    /** Two engines, each with its own Redis connection and its own provider client (as two servers have). */
    function twoInstances(): { instances: Verikit[]; providers: TestProviderV1[] } {
      const providers = [createTestProviderV1(), createTestProviderV1()];
      const instances = providers.map((provider) => {
        const store = createRedisStore({ url: redisUrl, namespace });
        stores.push(store);
        // A latency keeps the first call under way while the other instance's call arrives: the race is real.
        provider.setLatency(150);
        return createVerikit({ provider, store, secret, policies: { resendCooldownMs: 0 } });
      });
      return { instances, providers };
    }
    const sent = (providers: TestProviderV1[], operation: 'sms.send' | 'whatsapp.send' | 'phone.send') =>
      providers.reduce((total, provider) => total + provider.callsOf(operation).length, 0);

    /** Both instances at once with one key: one send, the same answer twice, one of them replayed. */
    async function race<T extends object>(calls: [() => Promise<T>, () => Promise<T>]): Promise<[T, T]> {
      const answers: [T, T] = await Promise.all([calls[0](), calls[1]()]);
      expect(answers.filter(isReplayed)).toHaveLength(1);
      return answers;
    }

    it('sendSms: a race on two instances sends once, a later repeat is replayed, other parameters are refused', async () => {
      const { instances, providers } = twoInstances();
      const [a, b] = instances as [Verikit, Verikit];
      const input = { from: 'Shop', to: phone, message: 'Your order shipped' };
      const key = { idempotencyKey: `sms-${namespace}` };
      const [one, two] = await race([() => a.sendSms(input, key), () => b.sendSms(input, key)]);
      expect(two).toEqual(one);
      const later = await b.sendSms(input, key);
      expect([later, isReplayed(later)]).toEqual([one, true]);
      await expect(a.sendSms({ ...input, message: 'Another' }, key)).rejects.toMatchObject({
        code: 'idempotency_key_reused',
        mismatch: ['message'],
      });
      expect(sent(providers, 'sms.send')).toBe(1);
    });

    it('sendWhatsApp: the same', async () => {
      const { instances, providers } = twoInstances();
      const [a, b] = instances as [Verikit, Verikit];
      const input = { to: phone, message: 'Your order shipped' };
      const key = { idempotencyKey: `wa-${namespace}` };
      const [one, two] = await race([() => a.sendWhatsApp(input, key), () => b.sendWhatsApp(input, key)]);
      expect(two).toEqual(one);
      expect(isReplayed(await a.sendWhatsApp(input, key))).toBe(true);
      await expect(b.sendWhatsApp({ ...input, to: '+2348012345679' }, key)).rejects.toMatchObject({ mismatch: ['to'] });
      expect(sent(providers, 'whatsapp.send')).toBe(1);
    });

    it('start: a race on two instances makes one flow and one send; another number with the key is refused', async () => {
      const { instances, providers } = twoInstances();
      const [a, b] = instances as [Verikit, Verikit];
      const key = { idempotencyKey: `start-${namespace}` };
      const input = { kind: 'phone', phoneNumber: phone } as const;
      const [one, two] = await race([() => a.start(input, key), () => b.start(input, key)]);
      expect(two.id).toBe(one.id);
      await expect(b.start({ ...input, phoneNumber: '+2348012345679' }, key)).rejects.toMatchObject({
        mismatch: ['phoneNumber'],
      });
      expect(sent(providers, 'phone.send')).toBe(1);
    });

    it('resend: a race on two instances resends once', async () => {
      const { instances, providers } = twoInstances();
      const [a, b] = instances as [Verikit, Verikit];
      const flow = await a.start({ kind: 'phone', phoneNumber: '+2348012345670' });
      const key = { idempotencyKey: `resend-${namespace}` };
      await race([() => a.send(flow.id, { type: 'resend' }, key), () => b.send(flow.id, { type: 'resend' }, key)]);
      expect(sent(providers, 'phone.send')).toBe(2);
    });
  },
);
