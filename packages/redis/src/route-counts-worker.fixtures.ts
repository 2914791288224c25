/**
 * One app instance of the shared route-counts test, as its own Node process:
 * `node --import tsx --conditions=@verikit/source route-counts-worker.fixtures.ts <settings as JSON>`.
 * A failover provider over three test-double members, routed by a learning router whose counts are on Redis (on a
 * Redis Cluster when `clusterUrls` is given). It
 * runs `flows` flows one after the other, each to an MTN number (or, given `prefixes`, to numbers under each in
 * turn); people type the code back only when `verifies` sent it. It reports which member sent each flow, and exits.
 */
import { silentLogger, type ProviderCallContextV1 } from '@verikit/provider';
import { createLearningRouter, withFailover } from '@verikit/provider-utils';
import { createTestProviderV1 } from '@verikit/testing';
import { createRedisRouteCounts } from './redis-route-counts.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisStore } from './redis-flow-store.js';
import type { RouteCountsInstance } from './route-counts-instance.fixtures.js';

const settings = JSON.parse(process.argv[2]!) as RouteCountsInstance;
const prefixes = settings.prefixes ?? ['+234803'];
const routes = prefixes.map((prefix) => `sms:${prefix.slice(1, 7)}`);
const store =
  settings.clusterUrls === undefined
    ? createRedisStore({ url: settings.url, namespace: settings.namespace })
    : createRedisClusterStore({ urls: [...settings.clusterUrls], namespace: settings.namespace });
await store.connect();
const members = ['first', 'second', 'third'].map((name) => createTestProviderV1({ name, channels: ['sms'] }));
// A fixed clock: no decay between the two processes, so the counts add up exactly.
const router = createLearningRouter({
  counts: createRedisRouteCounts({ store }),
  seed: settings.seed,
  readEveryMs: 0,
  clock: { now: () => 1_700_000_000_000 },
});
const provider = withFailover(members, { router });
const chosen: string[] = [];
for (let index = 0; index < settings.flows; index += 1) {
  const context: ProviderCallContextV1 = {
    signal: new AbortController().signal,
    idempotencyKey: `flow-${index}`,
    logger: silentLogger,
  };
  const prefix = prefixes[index % prefixes.length]!;
  const phoneNumber = `${prefix}${String(1_000_000 + settings.offset + index).slice(1)}`;
  const sent = await provider.phone!.send({ phoneNumber, channel: 'sms' }, context);
  chosen.push(sent.sentBy!);
  if (sent.sentBy === settings.verifies) {
    const code = members.find((member) => member.name === sent.sentBy)!.lastCode(phoneNumber)!;
    await provider.phone!.check({ requestId: sent.requestId, code }, context);
  }
}
// The counts are written after each call returns (not awaited by it): wait until this process's writes landed.
const counts = createRedisRouteCounts({ store });
for (let waited = 0; waited < 200; waited += 1) {
  let sent = 0;
  for (const route of routes)
    sent += Object.values(await counts.read(route)).reduce((sum, tally) => sum + tally.sent, 0);
  if (sent >= settings.offset + settings.flows) break;
  await new Promise((resolve) => setTimeout(resolve, 25));
}
process.send!({ chosen, table: await router.table() });
await store.close();
process.exit(0);
