import type { Loaded, RecentlyUsed } from '../flow-records.js';
import type { AfterCommitStep } from './after-commit-step.js';

/**
 * Keeps the record as committed among the engine's recent records, which the flow's next event starts from instead
 * of a store read (docs/decisions/1430-start-from-the-record-committed-here.md). A start's record is not kept: it
 * goes to the start's first provider call as its starting point, and that call's commit keeps its own.
 */
export function rememberRecent(recent: RecentlyUsed<Loaded>): AfterCommitStep {
  return ({ cause, record, flow, next }) => {
    if (cause !== 'start') recent.remember(record.id, { record, flow, snapshot: next });
  };
}
