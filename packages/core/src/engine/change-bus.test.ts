import { describe, expect, it } from 'vitest';
import { MemoryChangeBus, type FlowChangeBus, type FlowListener } from './change-bus.js';
import { setup } from './engine.fixtures.js';
import type { FlowView } from '../flows/view.js';

/** The in-process bus, counting the views the engine hands it; `asks` says whether it offers `follows`. */
function countingBus(asks: boolean) {
  const inner = new MemoryChangeBus();
  const published: number[] = [];
  const bus: FlowChangeBus = {
    publish: (view: FlowView) => {
      published.push(view.version);
      inner.publish(view);
    },
    subscribe: (flowId: string, listener: FlowListener) => inner.subscribe(flowId, listener),
    ...(asks ? { follows: (flowId: string) => inner.follows(flowId) } : {}),
  };
  return { bus, published };
}

describe('MemoryChangeBus.follows', () => {
  it('is true while the flow has a listener, and false before and after', () => {
    const bus = new MemoryChangeBus();
    expect(bus.follows('flow-a')).toBe(false);
    const first = bus.subscribe('flow-a', () => {});
    const second = bus.subscribe('flow-a', () => {});
    expect(bus.follows('flow-a')).toBe(true);
    expect(bus.follows('flow-b')).toBe(false);
    first();
    expect(bus.follows('flow-a')).toBe(true);
    second();
    expect(bus.follows('flow-a')).toBe(false);
  });
});

describe('the engine publishes a change only to a bus that may have listeners for it (decision 1450)', () => {
  it('hands a bus that says nobody follows the flow nothing, and every change once somebody does', async () => {
    const { bus, published } = countingBus(true);
    const { verikit } = setup({ changeBus: bus });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    expect(published).toEqual([]);
    const heard: number[] = [];
    const unsubscribe = verikit.subscribe(flow.id, (view) => heard.push(view.version));
    const last = await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    unsubscribe();
    expect(heard).toEqual([last.version - 1, last.version]);
    expect(published).toEqual(heard);
  });

  it('hands a bus without follows every change', async () => {
    const { bus, published } = countingBus(false);
    const { verikit } = setup({ changeBus: bus });
    const flow = await verikit.start({ kind: 'phone', phoneNumber: '+2348012345678' });
    const last = await verikit.send(flow.id, { type: 'submit-code', code: '000000' });
    // Every version, from the start's first write to the answer of the check.
    expect(published).toEqual(Array.from({ length: last.version }, (_, index) => index + 1));
  });
});
