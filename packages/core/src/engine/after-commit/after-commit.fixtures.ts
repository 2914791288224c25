import { defaultPolicies } from '../../flows/policies.js';
import type { FlowRecord } from '../../store/flow-store.js';
import { createMemoryKeyv, KeyvFlowStore } from '../../store/keyv-flow-store.js';
import { FlowRecords } from '../flow-records.js';
import { lazyView } from '../../flows/view.js';
import type { CommittedChange } from './after-commit-step.js';

/** Test-only: a real memory store, for a step to write to and a test to read back. */
export function memoryStore(): KeyvFlowStore {
  return new KeyvFlowStore(createMemoryKeyv());
}

/**
 * Test-only: a committed change of a real USSD flow (`flow-1`, version 2) from `initiating` to `awaiting-dial`, at
 * `now` 1,000, caused by an event; `overrides` replace any field.
 */
export function committedChange(overrides: Partial<CommittedChange> = {}): CommittedChange {
  const records = new FlowRecords(memoryStore(), defaultPolicies);
  const flow = records.flow('ussd');
  const [previous] = flow.transitions.initial({ flowId: 'flow-1', now: 0, phoneNumber: '+2348012345678' });
  const next = flow.transitions.resolve('awaiting-dial', previous.context as Record<string, unknown>);
  const base = { schemaVersion: 1, id: 'flow-1', kind: 'ussd' as const, createdAt: 0 };
  const before: FlowRecord = { ...base, version: 1, value: 'initiating', context: previous.context, updatedAt: 0 };
  const record: FlowRecord = { ...base, version: 2, value: 'awaiting-dial', context: next.context, updatedAt: 1000 };
  return {
    cause: 'event',
    before,
    record,
    previous,
    next,
    flow,
    effects: [],
    events: [],
    staged: [],
    routes: [],
    ttlMs: 60_000,
    view: lazyView(next, record, 1000),
    publishedWithWrite: false,
    unseen: false,
    now: 1000,
    call: undefined,
    outsideQueue: (work) => work(),
    ...overrides,
  };
}
