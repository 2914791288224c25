import { createTestProviderV1 } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../errors/index.js';
import { KeyvFlowStore } from '../store/keyv-flow-store.js';
import type { FlowStore } from '../store/flow-store.js';
import { MemoryChangeBus, type FlowChangeBus } from './change-bus.js';
import { createVerikit } from './create-verikit.js';
import { captureLogger, testSecret } from './engine.fixtures.js';

/**
 * A store whose writes of delivery routes (the keys a send's receipts find their flow by) fail the first `failures`
 * times with `error`, as a Redis Cluster master being replaced fails them (issue 35, finding 7).
 */
class FailingRouteWrites extends KeyvFlowStore {
  readonly written = new Map<string, string>();
  attempts = 0;
  #failures: number;
  readonly #error: () => Error;

  constructor(failures: number, error: () => Error) {
    super();
    this.#failures = failures;
    this.#error = error;
  }

  override async setRoute(key: string, flowId: string, ttlMs: number): Promise<void> {
    if (key.startsWith('delivery:')) {
      this.attempts += 1;
      if (this.#failures > 0) {
        this.#failures -= 1;
        throw this.#error();
      }
      this.written.set(key, flowId);
    }
    return super.setRoute(key, flowId, ttlMs);
  }
}

function started(store: FailingRouteWrites) {
  const { logger, lines } = captureLogger();
  const verikit = createVerikit({ provider: createTestProviderV1(), secret: testSecret, store, logger, guard: false });
  const logged = (message: string) => lines.filter((line) => line.message === message);
  return { verikit, logged };
}

describe("a send's delivery routes", () => {
  it('are written after the start when the store was briefly out (a retryable failure), and nothing is logged as lost', async () => {
    const store = new FailingRouteWrites(3, () => new StoreError('the flow store failed to write a route'));
    const { verikit, logged } = started(store);
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    // The start does not wait for the route: it answers, and the route follows.
    expect(flow.status).toBe('awaiting-code');
    await expect.poll(() => [...store.written.values()], { timeout: 15_000 }).toContain(flow.id);
    for (const [key] of store.written) expect(await store.getRoute(key)).toBe(flow.id);
    expect(store.attempts).toBe(4);
    expect(logged('verikit.route.failed')).toEqual([]);
    expect(logged('verikit.route.retried')).toMatchObject([{ level: 'info', fields: { flowId: flow.id, retries: 3 } }]);
  });

  it('are tried once more when the engine closes, and close() waits for that try', async () => {
    const store = new FailingRouteWrites(1, () => new StoreError('the flow store failed to write a route'));
    const { verikit, logged } = started(store);
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345670' });
    expect(store.written.size).toBe(0);
    await verikit.close();
    expect([...store.written.values()]).toContain(flow.id);
    expect(logged('verikit.route.retried')).toHaveLength(1);
  });

  it('are not tried again after a failure that is not retryable: it is logged once', async () => {
    const store = new FailingRouteWrites(1, () => new StoreError('refused', { isRetryable: false }));
    const { verikit, logged } = started(store);
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345679' });
    await expect.poll(() => logged('verikit.route.failed').length).toBe(1);
    expect(logged('verikit.route.failed')[0]).toMatchObject({ level: 'warn', fields: { flowId: flow.id } });
    expect(store.attempts).toBe(1);
    expect(store.written.size).toBe(0);
  });
});

/**
 * A bus whose publishing writes are the store's compare-and-set, and, when `writesRoutes`, its route writes too, as one
 * step would (the Redis bus on one node); `given` lists the routes each write was handed.
 */
function publishingBus(writesRoutes: boolean) {
  const local = new MemoryChangeBus();
  const given: Array<readonly string[] | undefined> = [];
  const bus: FlowChangeBus = {
    publish: (view) => local.publish(view),
    subscribe: (flowId, listener) => local.subscribe(flowId, listener),
    publishingWrite: (store: FlowStore) => ({
      ...(writesRoutes ? { writesRoutes } : {}),
      compareAndSetAndPublish: async (record, expectedVersion, ttlMs, _view, call, _unseen, routes) => {
        given.push(routes);
        const won = await store.compareAndSetFlow(record, expectedVersion, ttlMs, call);
        if (won) for (const route of routes ?? []) await store.setRoute(`in-write:${route}`, record.id, ttlMs, call);
        return won;
      },
      deliverLocally: (_flowId, view) => local.publish(view()),
    }),
  };
  return { bus, given };
}

describe("a send's delivery routes with a bus whose publishing writes commit (decision 2010)", () => {
  it('are handed to the write that commits the send when the bus writes them, and not written again', async () => {
    const store = new FailingRouteWrites(0, () => new StoreError('unused'));
    const { bus, given } = publishingBus(true);
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: testSecret,
      store,
      changeBus: bus,
      guard: false,
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345671' });
    const handed = given.find((routes) => routes !== undefined && routes.length > 0) ?? [];
    expect(handed).toHaveLength(1);
    expect(await store.getRoute(`in-write:${handed[0]}`)).toBe(flow.id);
    // The engine wrote no route of its own.
    expect(store.attempts).toBe(0);
    await verikit.close();
  });

  it("are written by the engine after the commit when the bus's writes do not say they write routes", async () => {
    const store = new FailingRouteWrites(0, () => new StoreError('unused'));
    const { bus, given } = publishingBus(false);
    const verikit = createVerikit({
      provider: createTestProviderV1(),
      secret: testSecret,
      store,
      changeBus: bus,
      guard: false,
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345672' });
    expect(given.every((routes) => routes === undefined)).toBe(true);
    expect([...store.written.values()]).toEqual([flow.id]);
    await verikit.close();
  });
});
