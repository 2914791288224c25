import { describe, expect, it } from 'vitest';
import { MemoryChangeBus, type FlowChangeBus, type PublishingWrite } from '../change-bus.js';
import { captureLogger } from '../engine.fixtures.js';
import type { FlowView, LazyView } from '../../flows/view.js';
import { committedChange } from './after-commit.fixtures.js';
import { publishView } from './publish-view.js';

/** A publishing write that records the views handed to this instance's listeners. */
function localOnly() {
  const local: Array<{ flowId: string; view: LazyView }> = [];
  const publishing: PublishingWrite = {
    compareAndSetAndPublish: async () => true,
    deliverLocally: (flowId, view) => void local.push({ flowId, view }),
  };
  return { publishing, local };
}

describe('publishView', () => {
  it("hands the change's view to the flow's subscribers", async () => {
    const bus = new MemoryChangeBus();
    const seen: FlowView[] = [];
    bus.subscribe('flow-1', (view) => void seen.push(view));
    await publishView({ bus, publishing: undefined, logger: captureLogger().logger })(committedChange());
    expect(seen.map((view) => [view.status, view.version])).toEqual([['awaiting-dial', 2]]);
  });

  it('neither makes nor publishes the view when the bus says nobody follows the flow', async () => {
    const bus = new MemoryChangeBus();
    let made = 0;
    const change = committedChange();
    await publishView({ bus, publishing: undefined, logger: captureLogger().logger })({
      ...change,
      view: () => {
        made += 1;
        return change.view();
      },
    });
    expect(made).toBe(0);
  });

  it('does not ask the in-process bus about an unseen flow; any other bus still gets its change', async () => {
    let asked = 0;
    const memory = new (class extends MemoryChangeBus {
      override follows(flowId: string): boolean {
        asked += 1;
        return super.follows(flowId);
      }
    })();
    const logger = captureLogger().logger;
    await publishView({ bus: memory, publishing: undefined, logger })(committedChange({ unseen: true }));
    expect(asked).toBe(0);
    await publishView({ bus: memory, publishing: undefined, logger })(committedChange());
    expect(asked).toBe(1);
    const published: FlowView[] = [];
    const other: FlowChangeBus = { publish: (view) => void published.push(view), subscribe: () => () => {} };
    await publishView({ bus: other, publishing: undefined, logger })(committedChange({ unseen: true }));
    expect(published.map((view) => view.id)).toEqual(['flow-1']);
  });

  it('hands a view the write published already to local listeners only', async () => {
    const published: FlowView[] = [];
    const bus: FlowChangeBus = { publish: (view) => void published.push(view), subscribe: () => () => {} };
    const { publishing, local } = localOnly();
    const change = committedChange({ publishedWithWrite: true });
    // Done at once: the commit waits for no promise of this step.
    expect(publishView({ bus, publishing, logger: captureLogger().logger })(change)).toBeUndefined();
    expect(published).toEqual([]);
    expect(local).toEqual([{ flowId: 'flow-1', view: change.view }]);
  });

  it('logs a failing bus: the commit stands and its caller gets no error', async () => {
    const bus: FlowChangeBus = {
      publish: () => Promise.reject(new Error('bus down')),
      subscribe: () => () => {},
    };
    const { logger, lines } = captureLogger();
    await publishView({ bus, publishing: undefined, logger })(committedChange());
    expect(lines).toEqual([
      { level: 'warn', message: 'verikit.publish.failed', fields: { flowId: 'flow-1', error: 'unknown' } },
    ]);
  });
});
