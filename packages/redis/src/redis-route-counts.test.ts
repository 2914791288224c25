/**
 * The route counts' fields in Redis: sent, delivered, verified and the seconds to verify, decayed together by the
 * script, and a member's field written before delivered and the seconds were kept read and extended. Mandatory when
 * CI=true; skipped, with the reason printed, when Redis is unreachable and CI is not set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisStore } from './create-redis-store.js';
import { createRedisRouteCounts } from './redis-route-counts.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';

const unavailable = await redisSkipReason('route counts fields');
const namespace = uniqueNamespace('route-fields');

afterAll(async () => {
  if (unavailable === undefined) await deleteNamespace(namespace);
});

describe.skipIf(unavailable !== undefined)('route counts in Redis: delivered and time to verify', () => {
  it('adds and decays every field in one script, and reads a field of the old three-number form', async () => {
    const store = createRedisStore({ url: redisUrl, namespace });
    try {
      const counts = createRedisRouteCounts({ store });
      await counts.add('sms:MTN', 'termii', 'sent', 0, 1000);
      await counts.add('sms:MTN', 'termii', 'sent', 0, 1000);
      await counts.add('sms:MTN', 'termii', 'delivered', 0, 1000);
      await counts.add('sms:MTN', 'termii', 'verified', 0, 1000, 30);
      // One half-life later: everything halves, then the new outcome is added.
      await counts.add('sms:MTN', 'termii', 'verified', 1000, 1000, 10);
      expect((await counts.read('sms:MTN')).termii).toEqual({
        sent: 1,
        delivered: 0.5,
        verified: 1.5,
        verifySeconds: 25,
        at: 1000,
      });
      // A field written before delivered and the seconds were kept: read as none, extended by the next count.
      await store.connect();
      await (store.client as unknown as { hSet(key: string, field: string, value: string): Promise<unknown> }).hSet(
        store.redisKey('route-counts:sms:MTN'),
        'gateway',
        '4.000000,3.000000,1000',
      );
      expect((await counts.read('sms:MTN')).gateway).toEqual({
        sent: 4,
        verified: 3,
        at: 1000,
        delivered: 0,
        verifySeconds: 0,
      });
      await counts.add('sms:MTN', 'gateway', 'delivered', 1000, 1000);
      expect((await counts.read('sms:MTN')).gateway).toMatchObject({ sent: 4, verified: 3, delivered: 1 });
    } finally {
      await store.close();
    }
  });
});
