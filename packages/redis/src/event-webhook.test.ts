import { fork } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVerikit, type FlowEvent, type Verikit } from '@verikit/core';
import { eventOutboxKey } from '@verikit/core/internal';
import { startWebhookReceiver, createTestProviderV1, type WebhookReceiver } from '@verikit/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventWebhookLeaseMs, eventWebhookSecret, eventWebhookTestSecret } from './event-webhook.fixtures.js';
import { createRedisChangeBus } from './redis-change-bus.js';
import { createRedisStore } from './create-redis-store.js';
import type { RedisFlowStore } from './redis-flow-store.js';
import { deleteNamespace, redisSkipReason, uniqueNamespace } from './redis-test-env.fixtures.js';

const skipReason = await redisSkipReason('@verikit/redis event webhook');
const here = dirname(fileURLToPath(import.meta.url));

describe.skipIf(skipReason !== undefined)('eventWebhook on Redis: every instance shares the outbox', () => {
  const namespaces = [uniqueNamespace('events'), uniqueNamespace('events')] as const;
  const stores: RedisFlowStore[] = [];
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver.close();
    await Promise.all(stores.map((store) => store.close()));
    for (const namespace of namespaces) await deleteNamespace(namespace);
  });

  function instance(
    namespace: string,
    timing: { timeoutMs: number; leaseMs: number; retryDelayMs?: number } = {
      timeoutMs: 500,
      leaseMs: eventWebhookLeaseMs,
    },
  ): {
    verikit: Verikit;
    store: RedisFlowStore;
    events: FlowEvent[];
    provider: ReturnType<typeof createTestProviderV1>;
  } {
    const store = createRedisStore({ namespace });
    stores.push(store);
    const provider = createTestProviderV1();
    const verikit = createVerikit({
      provider,
      secret: eventWebhookTestSecret,
      store,
      // The bus's publishing write (one script per commit) carries the record's events as the plain write does.
      changeBus: createRedisChangeBus({ store }),
      guard: false,
      eventWebhook: { url: receiver.url, secret: eventWebhookSecret, pollMs: 0, ...timing },
    });
    const events: FlowEvent[] = [];
    verikit.on('*', (event) => {
      events.push(event);
    });
    return { verikit, store, events, provider };
  }

  const receivedIds = () => receiver.received.map((request) => request.headers['webhook-id']!);

  it('a process killed between the commit and the delivery: another instance delivers each event exactly once', async () => {
    const namespace = namespaces[0];
    const survivor = instance(namespace);
    await survivor.store.connect();
    const worker = fork(join(here, 'event-webhook-worker.fixtures.ts'), [namespace, receiver.url], {
      cwd: resolve(here, '../../..'),
      execArgv: ['--import', 'tsx', '--conditions=@verikit/source'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const signal = await new Promise((resolveExit) =>
      worker.once('exit', (_code, exitSignal) => resolveExit(exitSignal)),
    );
    expect(signal).toBe('SIGKILL');
    expect(receiver.received).toHaveLength(0);

    // What the dead process committed and announced: its flow's record holds the events.
    const pending = (await survivor.store.client.zRange(
      survivor.store.redisKey(eventOutboxKey('due')),
      0,
      -1,
    )) as string[];
    expect(pending.length).toBeGreaterThan(0);
    const flowId = pending[0]!.split(':')[0]!;
    const record = await survivor.store.getFlow(flowId);
    const committed = (record?.outbox ?? []).map((event) => event.id);
    expect(committed[0]).toBe(`${flowId}:1:started`);

    // The events the dead process had not taken go out at once; the one it held, after its lease.
    await survivor.verikit.deliverEvents();
    expect(receivedIds()).not.toContain(committed[0]);
    await new Promise((resolveWait) => setTimeout(resolveWait, eventWebhookLeaseMs + 200));
    await Promise.all([survivor.verikit.deliverEvents(), instance(namespace).verikit.deliverEvents()]);
    expect(receivedIds().sort()).toEqual([...committed].sort());
    for (const request of receiver.received) new Webhook(eventWebhookSecret).verify(request.body, request.headers);
    expect(await survivor.store.client.zCard(survivor.store.redisKey(eventOutboxKey('due')))).toBe(0);
  });

  it('two instances committing and delivering at once: every event exactly once', async () => {
    const before = receiver.received.length;
    // An id one instance announced may be taken by the other before its commit lands: it is then retried soon.
    const timing = { timeoutMs: 5000, leaseMs: 10_000, retryDelayMs: 20 };
    const [first, second] = [instance(namespaces[1], timing), instance(namespaces[1], timing)];
    const numbers = Array.from({ length: 8 }, (_, index) => `+23480355501${String(30 + index)}`);
    await Promise.all(
      numbers.map(async (number, index) => {
        const { verikit, provider } = index % 2 === 0 ? first : second;
        const flow = await verikit.start({ kind: 'phone', phoneNumber: number });
        await verikit.send(flow.id, { type: 'submit-code', code: provider.lastCode(number)! });
      }),
    );
    const committed = [...first.events, ...second.events].map((event) => event.id).sort();
    for (let pass = 0; pass < 50 && receiver.received.length - before < committed.length; pass += 1) {
      await Promise.all([first.verikit.deliverEvents(), second.verikit.deliverEvents()]);
      await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    }
    expect(committed).toHaveLength(24);
    expect(receivedIds().slice(before).sort()).toEqual(committed);
  });
});
