/**
 * One app instance of idempotency-across-instances.test.ts, run as its own Node process:
 * `node --import tsx --conditions=@verikit/source idempotency-worker.fixtures.ts <index>`.
 * Its engine keeps flows and idempotency keys on the shared Redis under the plan's namespace and sends through the
 * gateway provider over HTTP (to the parent's gate in front of the gateway fake); its flow handler is served on
 * 127.0.0.1 at a port of its own. It answers the parent's commands over IPC:
 * - `{ arm: n }`: from now, the first time a store read or claim of this process finds a key held by another call
 *   (a `claim` that loses, a `getRoute` that finds a value), it says `{ contended: n }` once: the parent then knows this
 *   process's call is waiting on the other process's call;
 * - `{ call: { id, method, args } }`: `start`, `sendSms`, `sendWhatsApp`, `send` or `receive` on the engine, answered
 *   `{ [`answer-${id}`]: CallAnswer }`;
 * - `'done'`: closes everything and leaves.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createVerikit, isReplayed, VerikitError, type FlowStore, type Verikit } from '@verikit/core';
import { createGatewayProvider } from '@verikit/gateway';
import { createFlowHandler, toNodeHandler } from '@verikit/http';
import { parentMessages } from './multi-process.fixtures.js';
import { createRedisStore } from './create-redis-store.js';

/** What every worker is told first. */
export interface IdempotencyPlan {
  readonly url: string;
  readonly namespace: string;
  readonly secret: string;
  /** The gate's addresses (in front of the gateway fake's two listeners) and the fake's key. */
  readonly gateway: { readonly apiKey: string; readonly baseUrl: string; readonly ussdBaseUrl: string };
}

/** The engine calls a worker makes for the parent. */
export type IdempotencyMethod = 'start' | 'sendSms' | 'sendWhatsApp' | 'send' | 'receive';

/** One engine call's outcome, as the parent reads it. */
export type CallAnswer =
  | { readonly ok: true; readonly value: Record<string, unknown>; readonly replayed: boolean }
  | { readonly ok: false; readonly code: string; readonly mismatch?: readonly string[]; readonly message: string };

const worker = Number(process.argv[2] ?? '0');
const next = parentMessages();
const plan = (await next()) as IdempotencyPlan;

const redisStore = createRedisStore({ url: plan.url, namespace: plan.namespace });
await redisStore.connect();
let armed: number | undefined;
const contended = () => {
  if (armed === undefined) return;
  process.send!({ contended: armed });
  armed = undefined;
};
/** The Redis store, telling the parent when this process meets a key another call holds. */
const store: FlowStore = {
  getFlow: (id, call) => redisStore.getFlow(id, call),
  compareAndSetFlow: (record, expected, ttl, call) => redisStore.compareAndSetFlow(record, expected, ttl, call),
  async getRoute(key, call) {
    const value = await redisStore.getRoute(key, call);
    if (value !== undefined) contended();
    return value;
  },
  setRoute: (key, flowId, ttl, call) => redisStore.setRoute(key, flowId, ttl, call),
  async claim(key, ttl, call) {
    const claimed = await redisStore.claim(key, ttl, call);
    if (!claimed) contended();
    return claimed;
  },
  consume: (key, limit, windowMs, now, call) => redisStore.consume(key, limit, windowMs, now, call),
};
const verikit: Verikit = createVerikit({
  provider: createGatewayProvider({ ...plan.gateway, defaultSender: 'Shop', timeout: 60_000 }),
  store,
  secret: plan.secret,
  // Resends and restarts are open at once, so they can race; the send guard is not what is tested here.
  policies: { resendCooldownMs: 0 },
  guard: false,
});
const server = createServer(toNodeHandler(createFlowHandler({ verikit, webhookPath: false })));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.send!({ booted: { worker, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` } });

async function answer(method: IdempotencyMethod, args: unknown[]): Promise<CallAnswer> {
  try {
    const call = verikit[method] as (...values: unknown[]) => Promise<object>;
    const value = await call.apply(verikit, args);
    return {
      ok: true,
      value: JSON.parse(JSON.stringify(value)) as Record<string, unknown>,
      replayed: isReplayed(value),
    };
  } catch (error) {
    if (!VerikitError.isInstance(error)) throw error;
    const { mismatch } = error as { mismatch?: readonly string[] };
    return { ok: false, code: error.code, message: error.message, ...(mismatch === undefined ? {} : { mismatch }) };
  }
}

for (let message = await next(); message !== 'done'; message = await next()) {
  const command = message as { arm?: number; call?: { id: number; method: IdempotencyMethod; args: unknown[] } };
  if (command.arm !== undefined) {
    armed = command.arm;
    process.send!({ armed: command.arm });
  } else if (command.call !== undefined) {
    const { id, method, args } = command.call;
    // Calls run side by side: the parent waits for each answer by its id.
    void answer(method, args).then((result) => process.send!({ [`answer-${id}`]: result }));
  }
}
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await verikit.close();
await redisStore.close();
process.disconnect();
