import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestProviderV1, ManualClock } from '@verikit/testing';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createVerikit, KeyvFlowStore, type FlowRecord } from '@verikit/core';
import { inboundEventAttemptKey, inboundLeaseMs, inboundEventMarkerKey } from '@verikit/core/internal';
import type { Logger, ProviderEventV1, RawWebhookV1 } from '@verikit/provider';
import { resolveWebhookOptions, webhookDefaults } from './webhook-options.js';
import { webHandlerOf } from './create-webhook-handler.js';
import { webhookRouteWith } from './webhook-route.js';
import type { WebhookResponseBody } from './webhook-response.js';

/** The webhook route on test doubles, as a Web handler. */
const webhookEndpoint = (...args: Parameters<typeof webhookRouteWith>) => webHandlerOf(webhookRouteWith(...args));

const webhookSecret = `whsec_${Buffer.from('webhook-lease-test-key-32-bytes!').toString('base64')}`;
const phoneNumber = '+2348012345678';

function parse(webhook: RawWebhookV1): ProviderEventV1 | null {
  const body = JSON.parse(webhook.body) as { event: string; phoneNumber: string; status: 'success' | 'failed' };
  return body.event === 'USSD_VERIFICATION'
    ? { type: 'ussd-verification', phoneNumber: body.phoneNumber, status: body.status }
    : null;
}

/** A real store whose flow writes wait for `gate` once it is set: a store that answers slowly. */
class GatedStore extends KeyvFlowStore {
  gate: Promise<void> | undefined;
  override async compareAndSetFlow(record: FlowRecord, expectedVersion: number, ttlMs: number): Promise<boolean> {
    await this.gate;
    return super.compareAndSetFlow(record, expectedVersion, ttlMs);
  }
}

/** A USSD flow awaiting its dial, and a webhook handler with a short processing deadline (so a short lease). */
async function setup(processingTimeoutMs: number) {
  const clock = new ManualClock(Date.UTC(2031, 5, 1, 12));
  const store = new GatedStore();
  const lines: string[] = [];
  const at = (message: string) => void lines.push(message);
  const logger: Logger = { debug: at, info: at, warn: at, error: at };
  const verikit = createVerikit({
    provider: Object.assign(createTestProviderV1(), { webhooks: { parse } }),
    secret: 'engine-secret-for-the-lease-tests-0123',
    clock,
    store,
    logger,
  });
  const handler = webhookEndpoint(
    { receive: verikit.receive, parse, clock, logger },
    { secret: webhookSecret, processingTimeoutMs },
  );
  const flow = await verikit.start({ kind: 'ussd', phoneNumber });
  const body = JSON.stringify({ event: 'USSD_VERIFICATION', phoneNumber, status: 'success' });

  /** One signed delivery of message `id`, timestamped now by the engine's clock, as every redelivery is. */
  async function deliver(
    id: string,
  ): Promise<{ status: number; retryAfter: string | null; body: WebhookResponseBody }> {
    const at = new Date(clock.now());
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(webhookSecret).sign(id, at, body),
    };
    const response = await handler(new Request('https://app.example/webhooks', { method: 'POST', body, headers }));
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: (await response.json()) as WebhookResponseBody,
    };
  }
  const version = async () => (await store.getFlow(flow.id))!.version;
  return { verikit, store, flow, deliver, version, lines, clock };
}

describe('the claim on a message is tied to the processing deadline', () => {
  it('is a few seconds beyond the processing timeout by default (not a minute)', () => {
    const resolved = resolveWebhookOptions({ secret: webhookSecret }, 'webhooks');
    expect(resolved.processingTimeoutMs).toBe(webhookDefaults.processingTimeoutMs);
    expect(inboundLeaseMs(resolved.processingTimeoutMs)).toBe(15_000);
    expect(inboundLeaseMs(100)).toBe(150);
    expect(() => resolveWebhookOptions({ secret: webhookSecret, processingTimeoutMs: 5 }, 'webhooks')).toThrow(
      /webhooks\.processingTimeoutMs/,
    );
    expect(() => resolveWebhookOptions({ secret: webhookSecret, processingTimeoutMs: 1.5 }, 'webhooks')).toThrow(
      /processingTimeoutMs/,
    );
  });

  it('a message claimed by a process that then died is answered 409 with Retry-After, then applied exactly once after the claim lapses', async () => {
    // A lease of 300 ms. The store's records expire by the system clock: it stands still from the claim until the test
    // moves it past the lease, so the first delivery lands inside the lease however busy the machine (under load, a
    // real 300 ms passed between the claim and the first delivery, and that delivery applied).
    const processingTimeoutMs = 200;
    const leaseMs = inboundLeaseMs(processingTimeoutMs);
    const t = await setup(processingTimeoutMs);
    const before = await t.version();
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());

    // The dead process: it claimed the message's first attempt, as a delivery does, and never applied nor released it.
    expect(await t.store.claim(inboundEventAttemptKey('msg_crashed', 0), leaseMs)).toBe(true);

    const blocked = await t.deliver('msg_crashed');
    expect(blocked).toEqual({
      status: 409,
      retryAfter: String(Math.ceil(leaseMs / 1000)),
      body: { status: 'in-progress' },
    });
    expect(await t.version()).toBe(before);

    // The sender waits (here the lease, shorter than Retry-After's whole second) and delivers again: the dead claim has lapsed.
    vi.setSystemTime(Date.now() + leaseMs + 1);
    const redelivered = await t.deliver('msg_crashed');
    expect(redelivered).toEqual({ status: 200, retryAfter: null, body: { status: 'applied', flowId: t.flow.id } });
    expect((await t.deliver('msg_crashed')).body).toEqual({ status: 'duplicate' });
    expect(await t.version()).toBe(before + 1);
    expect((await t.verikit.get(t.flow.id)).status).toBe('verified');
  });

  it('past processingTimeoutMs a delivery answers 503 with Retry-After and stops waiting; the application runs on and is recorded once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Long enough for the redelivery below to land well inside the lease (lease - timeout = 100 ms).
    const processingTimeoutMs = 200;
    const t = await setup(processingTimeoutMs);
    const before = await t.version();
    t.store.gate = gate; // from now on the store answers slowly

    const slow = await t.deliver('msg_slow');
    expect(slow.status).toBe(503);
    expect(slow.body).toMatchObject({ status: 'retry', error: { code: 'webhook_timeout' } });
    expect(Number(slow.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(slow.retryAfter)).toBeLessThanOrEqual(Math.ceil(inboundLeaseMs(processingTimeoutMs) / 1000));
    expect(t.lines).toContain('verikit.inbound.timed-out');

    // While it still runs, the message is held: a redelivery is told to come back later.
    expect((await t.deliver('msg_slow')).status).toBe(409);

    release();
    // The application goes on to record the message (whether or not its claim lapsed meanwhile)...
    for (let wait = 0; (await t.store.getRoute(inboundEventMarkerKey('msg_slow'))) !== 'done' && wait < 200; wait += 1)
      await sleep(5);
    expect((await t.verikit.get(t.flow.id)).status).toBe('verified');
    // ...so every later delivery is a duplicate.
    expect((await t.deliver('msg_slow')).body).toEqual({ status: 'duplicate' });
    expect(await t.version()).toBe(before + 1);
  });

  it('a delivery that finishes in time answers as before, with no Retry-After', async () => {
    const t = await setup(10_000);
    const id = `msg_${randomUUID()}`;
    expect(await t.deliver(id)).toEqual({
      status: 200,
      retryAfter: null,
      body: { status: 'applied', flowId: t.flow.id },
    });
  });
});
