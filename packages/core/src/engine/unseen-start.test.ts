import { describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '@verikit/provider';
import { createTestProviderV1 } from '@verikit/testing';
import type { FlowStore } from '../store/flow-store.js';
import { MemoryChangeBus, type FlowChangeBus, type PublishingWrite } from './change-bus.js';
import { setup } from './engine.fixtures.js';

const webhookSecret = `whsec_${Buffer.from('unseen-start-test-key-0123456789').toString('base64')}`;

/**
 * A bus offering publishing writes (as the Redis bus does on one node) that records, per written version, whether the
 * engine said the flow was unseen: its id had reached nobody outside the start writing it (decision 1830).
 */
function recordingBus() {
  const unseen: Array<[version: number, unseen: boolean]> = [];
  const local = new MemoryChangeBus();
  const bus: FlowChangeBus = {
    publish: (view) => local.publish(view),
    subscribe: (flowId, listener) => local.subscribe(flowId, listener),
    publishingWrite: (store: FlowStore): PublishingWrite => ({
      compareAndSetAndPublish: async (record, expectedVersion, ttlMs, _view, call, isUnseen) => {
        unseen.push([record.version, isUnseen === true]);
        return store.compareAndSetFlow(record, expectedVersion, ttlMs, call);
      },
      deliverLocally: (_flowId, view) => local.publish(view()),
    }),
  };
  return { bus, unseen };
}

describe('a start whose flow nobody can follow yet (decision 1830)', () => {
  it("says its commits are unseen until the start returns, and no later commit's", async () => {
    const { bus, unseen } = recordingBus();
    const { verikit } = setup({ changeBus: bus, guard: false });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348030000001' });
    // Version 1 is the new flow's own write; 2 is the send's result, committed before the start returns.
    expect(unseen).toEqual([
      [1, false],
      [2, true],
    ]);
    await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    expect(unseen.slice(2)).toEqual([
      [3, false],
      [4, false],
    ]);
  });

  it('does not when a route key, a lifecycle listener of the start or the event webhook was given the id', async () => {
    const cases = [
      { start: { owner: 'owner-1' } },
      { start: { idempotencyKey: 'key-1' } },
      { listen: 'started' as const },
      { listen: '*' as const },
      { eventWebhook: { url: 'https://app.example/events', secret: webhookSecret, pollMs: 0 } },
    ];
    for (const each of cases) {
      const { bus, unseen } = recordingBus();
      const { verikit } = setup({
        changeBus: bus,
        guard: false,
        ...('eventWebhook' in each ? { eventWebhook: each.eventWebhook } : {}),
      });
      if ('listen' in each && each.listen !== undefined) verikit.on(each.listen, () => {});
      await verikit.start({ kind: 'phone', phoneNumber: '+2348030000002' }, 'start' in each ? each.start : undefined);
      expect(
        unseen.find(([version]) => version === 2),
        JSON.stringify(each),
      ).toEqual([2, false]);
      await verikit.close();
    }
  });

  it("says a fallback's commits within the start are unseen too", async () => {
    const { bus, unseen } = recordingBus();
    const provider = createTestProviderV1({ channels: ['whatsapp', 'sms'] });
    const { verikit } = setup({ changeBus: bus, guard: false, provider });
    provider.failNext('phone.send', new ProviderUnavailableError('connect ECONNREFUSED', { requestSent: false }));
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348030000004', channels: ['whatsapp', 'sms'] });
    expect(flow.status).toBe('awaiting-code');
    expect(unseen).toEqual([
      [1, false],
      [2, true],
      [3, true],
    ]);
  });

  it('does when the only lifecycle listener hears events the start does not cause', async () => {
    const { bus, unseen } = recordingBus();
    const { verikit } = setup({ changeBus: bus, guard: false });
    verikit.on('verified', () => {});
    await verikit.start({ kind: 'phone', phoneNumber: '+2348030000003' });
    expect(unseen).toContainEqual([2, true]);
  });

  it('on the in-process bus: a listener given the id by the start hears its send, and a follower after it the rest', async () => {
    const { verikit } = setup({ guard: false });
    const heard: string[] = [];
    verikit.on('started', (event) => {
      verikit.subscribe(event.flowId, (view) => void heard.push(`listener:${view.version}:${view.status}`));
    });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348030000005' });
    verikit.subscribe(flow.id, (view) => void heard.push(`after:${view.version}:${view.status}`));
    await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    // The listener subscribed while its event was told, so it hears the new flow's own write too.
    expect(heard.slice(0, 2)).toEqual(['listener:1:sending', 'listener:2:awaiting-code']);
    expect(heard.filter((line) => line.startsWith('after:')).at(-1)).toMatch(/^after:4:/);
    await verikit.close();
  });
});
