import { describe, expect, it } from 'vitest';
import { captureLogger } from '../engine.fixtures.js';
import { committedChange, memoryStore } from './after-commit.fixtures.js';
import { takeRouteKeys } from './take-route-keys.js';

describe('takeRouteKeys', () => {
  it('points each route key at the flow for as long as its record lives', async () => {
    const store = memoryStore();
    const step = takeRouteKeys({ store, logger: captureLogger().logger, supersede: async () => {} });
    await step(committedChange({ routes: ['ussd:phone:a', 'ussd:phone:b'] }));
    expect(await store.getRoute('ussd:phone:a')).toBe('flow-1');
    expect(await store.getRoute('ussd:phone:b')).toBe('flow-1');
  });

  it('does nothing, not even a promise, for a change that adds no route key', () => {
    const step = takeRouteKeys({ store: memoryStore(), logger: captureLogger().logger, supersede: async () => {} });
    expect(step(committedChange())).toBeUndefined();
  });

  it('supersedes the flow a key pointed to before, once out of the queue, unless it took the key back', async () => {
    const store = memoryStore();
    await store.setRoute('ussd:phone:a', 'older', 60_000);
    await store.setRoute('ussd:phone:b', 'took-it-back', 60_000);
    const superseded: string[] = [];
    const later: Array<() => Promise<void>> = [];
    const step = takeRouteKeys({
      store,
      logger: captureLogger().logger,
      supersede: async (flowId) => {
        superseded.push(flowId);
      },
    });
    await step(
      committedChange({
        routes: ['ussd:phone:a', 'ussd:phone:b'],
        outsideQueue: async (work) => void later.push(work),
      }),
    );
    expect(superseded).toEqual([]);
    await store.setRoute('ussd:phone:b', 'took-it-back', 60_000);
    for (const work of later) await work();
    expect(superseded).toEqual(['older']);
  });

  it('logs a supersede that fails: the newer flow stands', async () => {
    const store = memoryStore();
    await store.setRoute('ussd:phone:a', 'older', 60_000);
    const { logger, lines } = captureLogger();
    const step = takeRouteKeys({
      store,
      logger,
      supersede: () => Promise.reject(new Error('store down')),
    });
    await step(committedChange({ routes: ['ussd:phone:a'] }));
    expect(await store.getRoute('ussd:phone:a')).toBe('flow-1');
    expect(lines).toEqual([
      { level: 'warn', message: 'verikit.supersede.failed', fields: { flowId: 'older', error: 'unknown' } },
    ]);
  });

  it('leaves the flow a key pointed to before alone for a definition that does not supersede', async () => {
    const store = memoryStore();
    await store.setRoute('dial:ref', 'older', 60_000);
    const superseded: string[] = [];
    const change = committedChange({ routes: ['dial:ref'] });
    const step = takeRouteKeys({
      store,
      logger: captureLogger().logger,
      supersede: async (flowId) => void superseded.push(flowId),
    });
    await step({ ...change, flow: { ...change.flow, definition: { ...change.flow.definition, supersedes: false } } });
    expect(await store.getRoute('dial:ref')).toBe('flow-1');
    expect(superseded).toEqual([]);
  });
});
