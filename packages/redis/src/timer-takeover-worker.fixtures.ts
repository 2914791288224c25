/**
 * A worker of timer-takeover.test.ts, run as its own Node process: an engine on the shared Redis (or cluster) that
 * carries out a flow's due timer (an escalation, or the fallback a failed delivery receipt makes due) and stops dead
 * right before making the timer's send: it tells the parent `{ holding: flowId }` and waits for its SIGKILL.
 */
import { createVerikit, type FlowStore, type StoreCall } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { parentMessages } from './multi-process.fixtures.js';
import { createRedisClusterStore } from './redis-cluster-store.js';
import { createRedisStore } from './create-redis-store.js';

/** What the worker is told to do. */
export interface TakeoverWorkerPlan {
  readonly url: string;
  readonly clusterUrls?: readonly string[];
  readonly namespace: string;
  readonly secret: string;
  /** Added to this machine's clock: the escalation is due on it. */
  readonly skewMs: number;
  readonly leaseMs: number;
  readonly flowId: string;
  /** `fallback`: the worker receives an `undelivered` receipt for this message id; `escalation`: it runs its timers. */
  readonly receiptFor?: string;
}

const next = parentMessages();
process.send!({ booted: true });
const plan = (await next()) as TakeoverWorkerPlan;
const shared =
  plan.clusterUrls === undefined
    ? createRedisStore({ url: plan.url, namespace: plan.namespace })
    : createRedisClusterStore({ urls: plan.clusterUrls, namespace: plan.namespace });
// The instance dies right before the timer's send: its claim is where the send would be made.
const store = new Proxy(shared, {
  get(target, property) {
    if (property === 'claim')
      return (key: string, ttlMs: number, call?: StoreCall) => {
        if (!key.startsWith('timer-send:')) return target.claim(key, ttlMs, call);
        process.send!({ holding: plan.flowId });
        return new Promise<boolean>(() => {});
      };
    const value = Reflect.get(target, property, target) as unknown;
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
  },
}) as FlowStore;
const verikit = createVerikit({
  provider: createTestProviderV1({ channels: ['sms', 'whatsapp'] }),
  secret: plan.secret,
  store,
  clock: { now: () => Date.now() + plan.skewMs },
  timers: { pollMs: 0, leaseMs: plan.leaseMs },
});
if (plan.receiptFor === undefined) await verikit.runDueTimers();
else
  await verikit.receive({
    id: `receipt-${plan.flowId}`,
    event: { type: 'delivery', messageId: plan.receiptFor, status: 'undelivered', reason: 'twilio:63016' },
  });
