/**
 * A worker of keyed-start-retry.test.ts, run as its own Node process: it starts one phone flow with the plan's
 * idempotency key on the shared Redis, and stops for good between the claim of the key and the write of the flow (its
 * send guard's count never answers), telling the parent `{ between }` so the parent can kill it there.
 */
import { createVerikit, type SendGuardStore } from '@verikit/core';
import { createTestProviderV1 } from '@verikit/testing';
import { parentMessages } from './multi-process.fixtures.js';
import { createRedisStore } from './create-redis-store.js';

/** What the worker is told to do. */
export interface KeyedStartPlan {
  readonly url: string;
  readonly namespace: string;
  readonly secret: string;
  readonly phoneNumber: string;
  readonly idempotencyKey: string;
}

/** A send guard store whose count tells the parent it was reached, then never answers. */
const stuckHere: SendGuardStore = {
  limiter: () => ({
    consume: () => {
      process.send!({ between: true });
      return new Promise(() => {});
    },
    reward: () => Promise.resolve() as never,
  }),
};

const plan = (await parentMessages()()) as KeyedStartPlan;
const verikit = createVerikit({
  provider: createTestProviderV1(),
  store: createRedisStore({ url: plan.url, namespace: plan.namespace }),
  secret: plan.secret,
  guard: { store: stuckHere },
});
await verikit.start({ kind: 'phone', phoneNumber: plan.phoneNumber }, { idempotencyKey: plan.idempotencyKey });
