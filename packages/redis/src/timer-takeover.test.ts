/**
 * An instance that dies holding a flow's due timer (an escalation, a receipt's fallback), right before making its
 * send: another instance makes the send once the dead one's lease ends, exactly once (docs/plans.md, decision 1561).
 * The dying instance is a child process killed with SIGKILL, on a real Redis and, when `REDIS_CLUSTER_URLS` is set,
 * on Redis Cluster. Mandatory when CI=true.
 */
import { createVerikit, type Verikit } from '@verikit/core';
import { createTestProviderV1, type TestProviderV1 } from '@verikit/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { WorkerProcess } from './multi-process.fixtures.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { clusterSkipReason, clusterUrls, deleteClusterNamespace } from './redis-cluster.fixtures.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, redisUrl, uniqueNamespace } from './redis-test-env.fixtures.js';
import type { TakeoverWorkerPlan } from './timer-takeover-worker.fixtures.js';

const redisSkip = await redisSkipReason('timer takeover across processes');
const clusterSkip = await clusterSkipReason('timer takeover across processes on Redis Cluster');
const secret = 'timer-takeover-secret-0123456789abcdef';
const leaseMs = 1_000;
/** The escalation is due 15 s after the start on the engines' clock: the clocks run this far ahead once it is. */
const skewMs = 20_000;

let numberSeed = Math.floor(Math.random() * 40_000_000);
function freshPhoneNumber(): string {
  numberSeed += 1;
  return `+234806${String(numberSeed % 10_000_000).padStart(7, '0')}`;
}

function takeoverSuite(cluster: boolean) {
  const namespace = uniqueNamespace(cluster ? 'timer-takeover-cluster' : 'timer-takeover');
  const stores: RedisFlowStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
    if (cluster) await deleteClusterNamespace(clusterUrls, namespace);
    else await deleteNamespace(namespace);
  });

  /** The surviving instance, in this process: its clock moves ahead when the test says. */
  function survivor(): { verikit: Verikit; provider: TestProviderV1; ahead: () => void } {
    const store = cluster ? createRedisClusterStore({ urls: clusterUrls, namespace }) : createRedisStore({ namespace });
    stores.push(store);
    const provider = createTestProviderV1({ channels: ['sms', 'whatsapp'] });
    let skew = 0;
    const verikit = createVerikit({
      provider,
      secret,
      store,
      clock: { now: () => Date.now() + skew },
      timers: { pollMs: 0, leaseMs },
      policies: { resendCooldownMs: 1_000 },
    });
    return {
      verikit,
      provider,
      ahead: () => {
        skew = skewMs;
      },
    };
  }

  /** Runs the child until it holds the timer's send, then kills it. */
  async function dieHolding(plan: Omit<TakeoverWorkerPlan, 'url' | 'namespace' | 'secret' | 'skewMs' | 'leaseMs'>) {
    const worker = new WorkerProcess('timer-takeover-worker.fixtures.ts', 0);
    try {
      await worker.message('booted');
      worker.send({
        ...plan,
        url: redisUrl,
        ...(cluster ? { clusterUrls } : {}),
        namespace,
        secret,
        skewMs,
        leaseMs,
      } satisfies TakeoverWorkerPlan);
      expect(await worker.message('holding')).toBe(plan.flowId);
    } finally {
      worker.kill();
      await worker.exited;
    }
  }

  /** Runs the survivor's timers until the flow's send is made (the dead instance's lease ends first). */
  async function takeOver(verikit: Verikit, provider: TestProviderV1, sends: number) {
    await vi.waitFor(
      async () => {
        await verikit.runDueTimers();
        expect(provider.callsOf('phone.send')).toHaveLength(sends);
      },
      { timeout: 15_000, interval: 100 },
    );
  }

  it('a due escalation: the child commits it and dies before sending; this instance sends it once', async () => {
    const { verikit, provider, ahead } = survivor();
    const flow = await verikit.start({
      kind: 'phone',
      phoneNumber: freshPhoneNumber(),
      channels: ['sms', 'whatsapp'],
      escalateAfterMs: 15_000,
    });
    await dieHolding({ flowId: flow.id });
    expect(await verikit.get(flow.id)).toMatchObject({ status: 'sending', channel: 'whatsapp' });
    ahead();
    await takeOver(verikit, provider, 2);
    expect(provider.callsOf('phone.send').map((call) => call.input.channel)).toEqual(['sms', 'whatsapp']);
    expect(await verikit.get(flow.id)).toMatchObject({ status: 'awaiting-code', channel: 'whatsapp', sendsLeft: 3 });
    // Further passes, past the lease and the deadline of the send, make nothing more.
    await new Promise((resolve) => setTimeout(resolve, leaseMs + 100));
    await verikit.runDueTimers();
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  }, 40_000);

  it('a receipt’s fallback: the child answers the receipt and dies before sending; this instance sends it once', async () => {
    const { verikit, provider, ahead } = survivor();
    provider.script('phone.send', { requestId: `wa-${namespace}` });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: freshPhoneNumber(), channels: ['whatsapp', 'sms'] });
    await dieHolding({ flowId: flow.id, receiptFor: `wa-${namespace}` });
    expect(await verikit.get(flow.id)).toMatchObject({ status: 'sending', channel: 'sms' });
    ahead();
    await takeOver(verikit, provider, 2);
    expect(provider.callsOf('phone.send').map((call) => call.input.channel)).toEqual(['whatsapp', 'sms']);
    expect(await verikit.get(flow.id)).toMatchObject({ status: 'awaiting-code', channel: 'sms', channelsLeft: [] });
    await new Promise((resolve) => setTimeout(resolve, leaseMs + 100));
    await verikit.runDueTimers();
    expect(provider.callsOf('phone.send')).toHaveLength(2);
  }, 40_000);
}

describe.skipIf(redisSkip !== undefined)('a timer whose instance died is carried out once by another (Redis)', () => {
  takeoverSuite(false);
});

describe.skipIf(clusterSkip !== undefined)(
  'a timer whose instance died is carried out once by another (Redis Cluster)',
  () => {
    takeoverSuite(true);
  },
);
