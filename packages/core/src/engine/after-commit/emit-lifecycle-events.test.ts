import { describe, expect, it } from 'vitest';
import { captureLogger } from '../engine.fixtures.js';
import { lifecycleEventsOf, type FlowEvent } from '../../flows/view.js';
import { LifecycleListeners, emitLifecycleEvents } from './emit-lifecycle-events.js';
import { committedChange } from './after-commit.fixtures.js';

describe('emitLifecycleEvents', () => {
  it("hands the change's events to the engine's listeners, in order", () => {
    const listeners = new LifecycleListeners(captureLogger().logger);
    const heard: FlowEvent[] = [];
    listeners.on('*', (event: FlowEvent) => void heard.push(event));
    const change = committedChange();
    const events = lifecycleEventsOf(change.previous, change.next, change.record);
    emitLifecycleEvents(listeners)({ ...change, events });
    expect(heard.map((event) => event.type)).toEqual(['sent']);
    expect(heard).toEqual(events);
  });

  it('tells nothing for a change that caused no event', () => {
    const listeners = new LifecycleListeners(captureLogger().logger);
    const heard: FlowEvent[] = [];
    listeners.on('*', (event: FlowEvent) => void heard.push(event));
    emitLifecycleEvents(listeners)(committedChange());
    expect(heard).toEqual([]);
  });
});
