import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import { createVerikit } from '@verikit/core';
import { createWebhookHandler } from '@verikit/http';
import type { ProviderEventV1, RawWebhookV1 } from '@verikit/provider';
import { createTestProviderV1, freshPhoneNumber } from '@verikit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { deliverWebhook, scenarioWebhookSecret, signWebhook } from './multi-process.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis key names');

function parse(webhook: RawWebhookV1): ProviderEventV1 | null {
  const body = JSON.parse(webhook.body) as { event: string; phoneNumber: string; status: 'success' | 'failed' };
  return body.event === 'USSD_VERIFICATION'
    ? { type: 'ussd-verification', phoneNumber: body.phoneNumber, status: body.status }
    : null;
}

describe.skipIf(skipReason !== undefined)('Redis key names', () => {
  const namespace = uniqueNamespace('key-names');
  let store: RedisFlowStore | undefined;

  afterAll(async () => {
    await store?.close();
    await deleteNamespace(namespace);
  });

  it('after a USSD flow verified by webhook and a phone flow, no key in the namespace holds the last 7 digits of a number', async () => {
    store = createRedisStore({ url: redisUrl, namespace });
    const provider = createTestProviderV1();
    const verikit = createVerikit({ provider, store, secret: 'redis-key-names-secret-0123456789abcdef' });
    const handleWebhook = createWebhookHandler({ verikit, secret: scenarioWebhookSecret, parse });

    const ussdNumber = freshPhoneNumber();
    const ussd = await verikit.start({ kind: 'ussd', phoneNumber: ussdNumber });
    const webhook = signWebhook(
      ussd.id,
      `msg_${randomUUID().replaceAll('-', '')}`,
      { event: 'USSD_VERIFICATION', phoneNumber: ussdNumber, status: 'success' },
      Date.now(),
    );
    expect(await deliverWebhook(handleWebhook, webhook)).toMatchObject({
      httpStatus: 200,
      status: 'applied',
      appliedTo: ussd.id,
    });

    const phoneNumber = freshPhoneNumber();
    const phone = await verikit.start({ kind: 'phone', phoneNumber });
    await verikit.send(phone.id, { type: 'submit-code', code: provider.lastCode(phoneNumber)! });
    expect((await verikit.get(phone.id)).status).toBe('verified');

    const raw = createClient({ url: redisUrl });
    await raw.connect();
    const names: string[] = [];
    try {
      for await (const keys of raw.scanIterator({ MATCH: `${namespace}::*`, COUNT: 1000 })) names.push(...keys);
    } finally {
      raw.destroy();
    }
    // The keys the flows wrote are all there: the records, the USSD route, both send counters, the webhook's.
    expect(names.filter((name) => name.includes('::flow:'))).toHaveLength(2);
    expect(names.filter((name) => name.includes('::route:ussd:phone:'))).toHaveLength(1);
    expect(names.filter((name) => name.includes('::limit:sends:phone:'))).toHaveLength(2);
    expect(names.some((name) => name.includes('webhook:'))).toBe(true);
    for (const number of [ussdNumber, phoneNumber]) {
      for (const name of names) expect(name).not.toContain(number.slice(-7));
    }
  });
});
