/**
 * A webhook whose first delivery died between claiming its message and applying it, end to end over
 * real HTTP: the sandbox sends, an instance claims the message and dies (its store write never
 * returns, the load balancer answers 502), the next delivery reaches a healthy instance sharing the
 * store and is told `409 in-progress` with `Retry-After`, the sandbox waits as told, and the retry
 * after the claim lapsed is applied, exactly once. The store's records expire by a manual clock that moves only by
 * what the sandbox waits, so the claim holds through the second delivery and has lapsed by the third however busy
 * the machine (on the wall clock a loaded machine let the claim lapse before the second delivery).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryKeyv, createVerikit, KeyvFlowStore, type FlowRecord, type FlowView } from '@verikit/core';
import { createWebhookHandler, toNodeHandler } from '@verikit/http';
import { ManualClock } from '@verikit/testing';
import { describe, expect, it } from 'vitest';
import { gatewayOver } from '../gateway.fixtures.js';
import type { GatewayFakeEvent } from './gateway-fake-options.js';
import { generateWebhookSecret, startGatewayFake } from './start-gateway-fake.js';

const engineSecret = 'retry-after-end-to-end-secret-0123456789';

/** The dying instance's view of the shared store: its flow writes never return (the process froze, then died). */
class FrozenWritesStore extends KeyvFlowStore {
  reached!: () => void;
  readonly frozen = new Promise<void>((resolve) => {
    this.reached = resolve;
  });
  constructor(private readonly shared: KeyvFlowStore) {
    super();
  }
  override getFlow(id: string) {
    return this.shared.getFlow(id);
  }
  override compareAndSetFlow(_record: FlowRecord, _expectedVersion: number, _ttlMs: number): Promise<boolean> {
    this.reached();
    return new Promise<boolean>(() => {});
  }
  override getRoute(key: string) {
    return this.shared.getRoute(key);
  }
  override setRoute(key: string, flowId: string, ttlMs: number) {
    return this.shared.setRoute(key, flowId, ttlMs);
  }
  override claim(key: string, ttlMs: number) {
    return this.shared.claim(key, ttlMs);
  }
}

describe('a webhook whose handler died after claiming it', () => {
  it('is answered 409 with Retry-After; the sandbox waits as told and its retry is applied exactly once', async () => {
    const webhookSecret = generateWebhookSecret();
    const storeClock = new ManualClock(Date.now());
    const store = new KeyvFlowStore(createMemoryKeyv({ clock: storeClock }));
    const frozen = new FrozenWritesStore(store);
    // A 200 ms processing deadline: the claim lapses 300 ms (by the store's clock) after it was taken.
    const webhookOptions = { secret: webhookSecret, processingTimeoutMs: 200 };
    let dying: ((request: Request) => Promise<Response>) | undefined;
    let healthy: ((request: Request) => Promise<Response>) | undefined;
    const answers: Array<{ status: number; retryAfter: string | null; body: unknown }> = [];

    let deliveries = 0;
    const server: Server = createServer(
      toNodeHandler(async (request) => {
        deliveries += 1;
        if (deliveries === 1) {
          // The first delivery reaches the instance that dies once it has claimed the message.
          void dying!(request);
          await frozen.frozen;
          answers.push({ status: 502, retryAfter: null, body: undefined });
          return new Response('bad gateway', { status: 502 });
        }
        const response = await healthy!(request);
        answers.push({
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          body: await response.clone().json(),
        });
        return response;
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sandbox = await startGatewayFake({
      webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
      webhookSecret,
      // Without Retry-After the third attempt would come 20 ms after the second, while the claim still holds.
      webhookRetryDelaysMs: [20, 20],
    });
    const events: GatewayFakeEvent[] = [];
    sandbox.onRequest((event) => {
      events.push(event);
      // The store's time passes as the sandbox waits before its next attempt: 20 ms (the claim holds), then 1 s.
      if (event.type === 'webhook' && event.willRetry) storeClock.advance(event.retryInMs ?? 0);
    });
    try {
      const provider = gatewayOver(sandbox);
      const verikit = createVerikit({ provider, secret: engineSecret, store });
      dying = createWebhookHandler({
        verikit: createVerikit({ provider, secret: engineSecret, store: frozen }),
        ...webhookOptions,
      });
      healthy = createWebhookHandler({ verikit, ...webhookOptions });

      const phoneNumber = '+2348031239101';
      const started = await verikit.start({ kind: 'ussd', phoneNumber });
      expect(started.status).toBe('awaiting-dial');
      const committed: FlowView[] = [];
      const unsubscribe = verikit.subscribe(started.id, (view) => committed.push(view));

      const delivery = await sandbox.dialUssd(phoneNumber, { otp: started.otp! });

      expect(delivery).toMatchObject({ delivered: true, attempts: 3, lastStatus: 200 });
      expect(answers).toEqual([
        { status: 502, retryAfter: null, body: undefined },
        { status: 409, retryAfter: '1', body: { status: 'in-progress' } },
        { status: 200, retryAfter: null, body: { status: 'applied', flowId: started.id } },
      ]);
      // The sandbox waited its schedule after the 502, and what Retry-After asked after the 409.
      const waits = events.flatMap((event) => (event.type === 'webhook' && event.willRetry ? [event.retryInMs] : []));
      expect(waits).toEqual([20, 1000]);

      const verified = await verikit.get(started.id);
      expect([verified.status, verified.version]).toEqual(['verified', started.version + 1]);
      expect(committed.map((view) => [view.status, view.version])).toEqual([['verified', started.version + 1]]);
      unsubscribe();
    } finally {
      await sandbox.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });
});
